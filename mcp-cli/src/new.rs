//! `mcp new NAME`: a server crate that builds and passes `cargo test` as generated: a tool, a
//! resource, a prompt, and a test of each through the in-memory `TestClient`.

use std::path::{Path, PathBuf};

use crate::connect::Failure;

/// Runs `mcp new`.
pub(crate) fn run(name: &str, path: Option<&Path>, runtime_path: Option<&Path>, json: bool) -> Result<(), Failure> {
    check_name(name)?;
    let folder = path.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(name));
    if folder.exists() && std::fs::read_dir(&folder).map(|mut d| d.next().is_some()).unwrap_or(true) {
        return Err(Failure::Usage(format!(
            "`{}` exists and is not empty; choose another name or `--path`",
            folder.display()
        )));
    }
    let runtime = match runtime_path {
        Some(dir) => {
            let dir =
                dir.canonicalize().map_err(|e| Failure::Usage(format!("`--runtime-path {}`: {e}", dir.display())))?;
            format!("{{ path = {:?}", dir.display().to_string())
        }
        None => format!("{{ version = \"{}\"", env!("CARGO_PKG_VERSION")),
    };
    let files = [
        ("Cargo.toml", manifest(name, &runtime)),
        ("src/main.rs", MAIN.replace("{{name}}", name)),
        ("src/tests.rs", TESTS.replace("{{name}}", name)),
        (".gitignore", "/target\n".to_owned()),
    ];
    for (file, contents) in &files {
        let path = folder.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::failed(format!("cannot make {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, contents)
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}", path.display())))?;
    }
    if json {
        let files: Vec<String> = files.iter().map(|(file, _)| folder.join(file).display().to_string()).collect();
        crate::output::print_json(
            &serde_json::json!({"crate": name, "path": folder.display().to_string(), "files": files}),
        );
        return Ok(());
    }
    println!("Made `{name}` in {}:", folder.display());
    println!("  cd {} && cargo test      the tests, in memory", folder.display());
    println!("  mcp inspect -- cargo run -q   what a client sees");
    println!("  mcp dev                       run it with hot reload");
    Ok(())
}

/// A crate name cargo accepts, and one that is not a keyword of Rust's.
fn check_name(name: &str) -> Result<(), Failure> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(Failure::Usage(format!(
            "`{name}` cannot name a crate: start with a letter, then letters, digits, `_` or `-`"
        )));
    }
    if ["test", "std", "core", "alloc", "proc_macro", "self", "crate", "super"].contains(&name) {
        return Err(Failure::Usage(format!("`{name}` is reserved; choose another name")));
    }
    Ok(())
}

fn manifest(name: &str, runtime: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"

[dependencies]
mcp-runtime = {runtime} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"

[dev-dependencies]
mcp-runtime = {runtime}, features = ["testing"] }}
tokio = {{ version = "1", features = ["macros", "rt"] }}
"#
    )
}

const MAIN: &str = r##"//! {{name}}: an MCP server. `cargo run` serves it on stdio; `mcp inspect -- cargo run -q`
//! shows what a client sees.

use mcp_runtime::prelude::*;

/// Greets someone by name.
#[mcp_tool(read_only)]
fn greet(
    /// Who to greet
    name: String,
    /// How many exclamation marks
    excitement: Option<Bounded<0, 5>>,
) -> String {
    let marks = "!".repeat(excitement.map_or(1, |e| e.get() as usize));
    format!("Hello, {name}{marks}")
}

/// What this server is for.
#[mcp_resource("about://{{name}}", mime = "text/markdown")]
const ABOUT: &str = "# {{name}}\n\nGreets people.";

/// Asks the model for a greeting in a language.
#[mcp_prompt]
fn greeting_in(
    /// The language to greet in
    language: String,
) -> String {
    format!("Write a short, friendly greeting in {language}.")
}

fn main() -> mcp_runtime::Result<()> {
    Server::new("{{name}}", env!("CARGO_PKG_VERSION")).run()
}

#[cfg(test)]
mod tests;
"##;

const TESTS: &str = r##"//! The server in memory, as a client sees it; each result is checked against the declared
//! schemas.

use mcp_runtime::Server;
use mcp_runtime::testing::TestClient;
use serde_json::json;

async fn connect() -> TestClient {
    TestClient::connect(Server::new("{{name}}", "0.1.0")).await.expect("the server starts")
}

#[tokio::test]
async fn greet_greets_by_name_with_the_marks_asked() {
    let client = connect().await;
    let result = client.call_tool("greet", json!({"name": "Ada", "excitement": 3})).await.expect("a result");
    assert_eq!(result["content"][0]["text"], "Hello, Ada!!!");
    let result = client.call_tool("greet", json!({"name": "Ada"})).await.expect("a result");
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
    // The test client checks arguments against the tool's schema: 0 to 5 marks.
    let refused = client.call_tool("greet", json!({"name": "Ada", "excitement": 9})).await;
    assert!(refused.is_err(), "{refused:?}");
}

#[tokio::test]
async fn the_about_page_and_the_prompt_are_served() {
    let client = connect().await;
    let about = client.read_resource("about://{{name}}").await.expect("the resource");
    assert!(about["contents"][0]["text"].as_str().unwrap().starts_with("# {{name}}"));
    let prompt = client.get_prompt("greeting_in", json!({"language": "Welsh"})).await.expect("the prompt");
    assert!(prompt["messages"][0]["content"]["text"].as_str().unwrap().contains("Welsh"));
}
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_crates_are_refused_with_the_rule() {
        assert!(check_name("weather").is_ok());
        assert!(check_name("weather-2").is_ok());
        assert!(matches!(check_name("2weather"), Err(Failure::Usage(m)) if m.contains("start with a letter")));
        assert!(matches!(check_name("we ather"), Err(Failure::Usage(_))));
        assert!(matches!(check_name("test"), Err(Failure::Usage(m)) if m.contains("reserved")));
    }
}
