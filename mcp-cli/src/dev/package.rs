//! The server's package: which one (`-p`, `--manifest-path`, or the crate of the current
//! directory), which binary, which folders hold its sources, and building it.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;

use crate::args::DevArgs;
use crate::connect::Failure;

/// What `mcp dev` builds and runs.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) bin: String,
    manifest: PathBuf,
    /// The binary cargo writes.
    pub(crate) binary: PathBuf,
    /// The package's folder and those of its path dependencies.
    pub(crate) sources: Vec<PathBuf>,
    /// Skipped while watching: the build's own output.
    pub(crate) target_dir: PathBuf,
}

/// Why a build failed: the part of cargo's report that names the errors.
#[derive(Debug, Clone)]
pub(crate) struct BuildFailure {
    pub(crate) errors: String,
}

impl Package {
    /// Finds the package the command line names.
    pub(crate) async fn locate(args: &DevArgs) -> Result<Package, Failure> {
        let mut command = tokio::process::Command::new(cargo());
        command.args(["metadata", "--format-version", "1", "--no-deps"]);
        if let Some(manifest) = &args.manifest_path {
            command.arg("--manifest-path").arg(manifest);
        }
        let output = command
            .stderr(Stdio::piped())
            .output()
            .await
            .map_err(|e| Failure::failed(format!("cannot run cargo: {e}")))?;
        if !output.status.success() {
            return Err(Failure::Usage(format!(
                "no crate here: {}",
                String::from_utf8_lossy(&output.stderr).trim().trim_start_matches("error: ")
            )));
        }
        let metadata: Value =
            serde_json::from_slice(&output.stdout).map_err(|e| Failure::failed(format!("cargo metadata: {e}")))?;
        let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
        let package = choose(&packages, args)?;
        let name = package["name"].as_str().unwrap_or_default().to_owned();
        let bins: Vec<&str> = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bin")))
            .filter_map(|t| t["name"].as_str())
            .collect();
        let bin = match (&args.bin, bins.as_slice()) {
            (Some(bin), _) if bins.contains(&bin.as_str()) => bin.clone(),
            (Some(bin), _) => {
                return Err(Failure::Usage(format!("`{name}` has no binary `{bin}`; it has: {}", bins.join(", "))));
            }
            (None, [only]) => (*only).to_owned(),
            (None, []) => return Err(Failure::Usage(format!("`{name}` has no binary to run as a server"))),
            (None, several) => match package["default_run"].as_str().or(several.iter().copied().find(|b| *b == name)) {
                Some(bin) => bin.to_owned(),
                None => {
                    return Err(Failure::Usage(format!(
                        "`{name}` has several binaries ({}); say which with `--bin`",
                        several.join(", ")
                    )));
                }
            },
        };
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default());
        let target_dir = PathBuf::from(metadata["target_directory"].as_str().unwrap_or("target"));
        let mut sources: Vec<PathBuf> = manifest.parent().map(Path::to_path_buf).into_iter().collect();
        // Path dependencies, and theirs when they are packages of the same workspace.
        let mut queue = vec![package.clone()];
        while let Some(next) = queue.pop() {
            for dependency in next["dependencies"].as_array().into_iter().flatten() {
                let Some(path) = dependency["path"].as_str().map(PathBuf::from) else { continue };
                if sources.contains(&path) {
                    continue;
                }
                sources.push(path.clone());
                let manifest = path.join("Cargo.toml");
                if let Some(member) = packages.iter().find(|p| p["manifest_path"].as_str() == manifest.to_str()) {
                    queue.push(member.clone());
                }
            }
        }
        let binary = target_dir.join("debug").join(&bin);
        Ok(Package { name, bin, manifest, binary, sources, target_dir })
    }

    /// `cargo build` of the binary (a debug build: the quickest to rebuild). Cargo's report
    /// goes to stderr either way.
    pub(crate) async fn build(&self) -> Result<(), BuildFailure> {
        let output = tokio::process::Command::new(cargo())
            .args(["build", "--color", "never", "--manifest-path"])
            .arg(&self.manifest)
            .args(["-p", &self.name, "--bin", &self.bin])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|e| BuildFailure { errors: format!("cannot run cargo: {e}") })?;
        let report = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            return Ok(());
        }
        eprint!("{report}");
        Err(BuildFailure { errors: errors_of(&report) })
    }
}

/// The package the command line means: `-p`, the one whose folder holds the current
/// directory (or the manifest given), or the only one.
fn choose(packages: &[Value], args: &DevArgs) -> Result<Value, Failure> {
    let names = || packages.iter().filter_map(|p| p["name"].as_str()).collect::<Vec<_>>().join(", ");
    if let Some(name) = &args.package {
        return packages
            .iter()
            .find(|p| p["name"] == name.as_str())
            .cloned()
            .ok_or_else(|| Failure::Usage(format!("no package `{name}`; there are: {}", names())));
    }
    let here = match &args.manifest_path {
        Some(manifest) => manifest.canonicalize().ok().and_then(|m| m.parent().map(Path::to_path_buf)),
        None => std::env::current_dir().ok(),
    };
    let closest = packages
        .iter()
        .filter_map(|p| {
            let folder = Path::new(p["manifest_path"].as_str()?).parent()?.to_path_buf();
            here.as_ref().filter(|h| h.starts_with(&folder)).map(|_| (folder.components().count(), p))
        })
        .max_by_key(|(depth, _)| *depth);
    match (closest, packages) {
        (Some((_, package)), _) => Ok(package.clone()),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(Failure::Usage(format!("several packages here; say which with `-p`: {}", names()))),
    }
}

/// The part of cargo's report a client is told: from the first error on, bounded.
fn errors_of(report: &str) -> String {
    let lines: Vec<&str> = report.lines().skip_while(|l| !l.starts_with("error")).take(60).collect();
    if lines.is_empty() { report.trim().to_owned() } else { lines.join("\n") }
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_errors_told_start_at_the_first_error() {
        let report =
            "   Compiling demo v0.1.0\nwarning: unused\nerror[E0308]: mismatched types\n --> src/main.rs:3:5\n";
        assert_eq!(errors_of(report), "error[E0308]: mismatched types\n --> src/main.rs:3:5");
    }
}
