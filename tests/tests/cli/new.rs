//! `mcp new`: the crate it makes builds and passes its own tests as generated, against this
//! workspace's `mcp-runtime` (through a `[patch]`, offline).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use mcp_tests::clients::run_bounded;
use mcp_tests::services::scratch;
use mcp_tests::{target_dir, workspace_root};

use super::{arg, mcp};

/// Makes crate `name_<pid>` with `mcp new` in a scratch folder, pointed at this workspace's
/// `mcp-runtime` by a `[patch]` (it is not on crates.io), its own workspace, with the
/// workspace's lock file and profile so that the dependencies built for the other tests are
/// reused. Returns its folder. The process id in the name keeps cargo from taking another
/// run's build of a crate of the same name for this one's (a workspace root's own package is
/// hashed without its path).
pub(crate) fn scratch_crate(name: &str) -> PathBuf {
    let name = format!("{name}_{}", std::process::id());
    let folder = scratch(&name).join(&name);
    let ran = mcp(&["new", &name, "--path", &arg(&folder)]);
    assert!(ran.status.success(), "{ran:#?}");
    assert!(ran.stdout.contains("cargo test"), "{ran:#?}");
    let manifest = folder.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("the manifest");
    let runtime = workspace_root().join("mcp-runtime");
    text.push_str(&format!(
        "\n[workspace]\n\n[patch.crates-io]\nmcp-runtime = {{ path = {:?} }}\n\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n",
        arg(&runtime)
    ));
    std::fs::write(&manifest, text).expect("the manifest written");
    std::fs::copy(workspace_root().join("Cargo.lock"), folder.join("Cargo.lock")).expect("the lock file copied");
    folder
}

/// `cargo args...` in `folder`, offline, with the workspace's target directory.
pub(crate) fn cargo(folder: &Path, args: &[&str]) -> (bool, String) {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(folder).args(args).arg("--offline").env("CARGO_TARGET_DIR", target_dir());
    let (status, stdout, stderr) = run_bounded(command, Duration::from_secs(900));
    (status.success(), format!("{stdout}{stderr}"))
}

#[test]
fn a_new_crate_builds_and_passes_its_tests_as_generated() {
    let folder = scratch_crate("greeter");
    let main = std::fs::read_to_string(folder.join("src/main.rs")).expect("src/main.rs");
    for item in ["#[mcp_tool", "#[mcp_resource", "#[mcp_prompt"] {
        assert!(main.contains(item), "no {item} in:\n{main}");
    }
    let (passed, output) = cargo(&folder, &["test"]);
    assert!(passed, "{output}");
    assert!(output.contains("test result: ok. 2 passed"), "{output}");
}

#[test]
fn json_lists_what_was_made_and_a_bad_name_or_a_folder_in_use_is_a_usage_error() {
    let made = scratch("new-json").join("listed");
    let ran = mcp(&["new", "listed", "--json", "--path", &arg(&made)]);
    assert!(ran.status.success(), "{ran:#?}");
    let report = ran.json();
    assert_eq!(report["crate"], "listed");
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 4, "{report:#}");
    assert!(files.iter().all(|f| std::path::Path::new(f.as_str().unwrap()).is_file()), "{report:#}");

    let ran = mcp(&["new", "9lives"]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    assert!(ran.stderr.contains("start with a letter"), "{ran:#?}");
    let used = scratch("new-used");
    std::fs::write(used.join("keep.txt"), "mine").expect("a file");
    let ran = mcp(&["new", "used", "--path", &arg(&used)]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    assert!(ran.stderr.contains("not empty"), "{ran:#?}");
}
