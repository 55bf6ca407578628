//! The READMEs' Rust code blocks are the files `tests/fixtures/readme-blocks` builds, word for
//! word, with only the dependencies the README documents: a block that changes without its file
//! (or a new block without one) fails here, and a file that stops compiling fails the build.

use mcp_tests::workspace_root;

/// The Rust code blocks of the Markdown file `path` (relative to the workspace root): those
/// fenced as `rust...` or, in rustdoc's README, `no_run`.
fn rust_blocks(path: &str) -> Vec<String> {
    /// Where a line is: outside any fence, in a Rust block (collected), or in another block.
    enum At {
        Text,
        Rust(String),
        Other,
    }
    let text = std::fs::read_to_string(workspace_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut blocks = Vec::new();
    let mut at = At::Text;
    for line in text.lines() {
        at = match (at, line.strip_prefix("```")) {
            (At::Text, Some(lang)) if lang.starts_with("rust") || lang == "no_run" => At::Rust(String::new()),
            (At::Text, Some(_)) => At::Other,
            (At::Rust(block), Some(_)) => {
                blocks.push(block);
                At::Text
            }
            (At::Other, Some(_)) => At::Text,
            (At::Rust(mut block), None) => {
                block.push_str(line);
                block.push('\n');
                At::Rust(block)
            }
            (at, None) => at,
        };
    }
    assert!(matches!(at, At::Text), "{path}: a code block is not closed");
    blocks
}

/// Checks that the Rust blocks of `readme` are, in order, the contents of `files`.
fn blocks_are_files(readme: &str, files: &[&str]) {
    let blocks = rust_blocks(readme);
    assert_eq!(
        blocks.len(),
        files.len(),
        "{readme} has {} Rust blocks; each needs its file in tests/fixtures/readme-blocks (and its [[bin]])",
        blocks.len()
    );
    for (block, file) in blocks.iter().zip(files) {
        let built = std::fs::read_to_string(workspace_root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(block, &built, "a Rust block of {readme} differs from {file}, which the tests build");
    }
}

#[test]
fn the_readme_blocks_are_the_files_built_with_the_documented_dependencies() {
    blocks_are_files(
        "README.md",
        &[
            "examples/gift_genius/main.rs",
            "tests/fixtures/readme-blocks/src/bin/notes.rs",
            "tests/fixtures/readme-blocks/src/bin/search.rs",
        ],
    );
    blocks_are_files("mcp-runtime/README.md", &["tests/fixtures/readme-blocks/src/bin/calculator.rs"]);
}

/// The fixture depends on what the README's `Cargo.toml` snippet lists, and nothing else.
#[test]
fn the_fixture_depends_on_what_the_readme_documents() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let snippet = readme.split("```toml\n[dependencies]\n").nth(1).expect("a [dependencies] snippet in the README");
    let snippet = &snippet[..snippet.find("```").expect("the snippet ends")];
    let documented = crate_names(snippet);
    let manifest = std::fs::read_to_string(workspace_root().join("tests/fixtures/readme-blocks/Cargo.toml"))
        .expect("the fixture's manifest");
    let section = manifest.split("[dependencies]\n").nth(1).expect("[dependencies]");
    let used = crate_names(&section[..section.find("\n[").unwrap_or(section.len())]);
    assert_eq!(used, documented, "the fixture must depend on exactly the README's dependencies");
}

/// The crate names of the `name = ...` lines of a `[dependencies]` table.
fn crate_names(table: &str) -> Vec<String> {
    let mut names: Vec<String> = table
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(|line| line.split_once('=').map(|(name, _)| name.trim().to_owned()))
        .filter(|name| !name.is_empty())
        .collect();
    names.sort();
    names
}
