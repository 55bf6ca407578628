//! The READMEs' Rust code blocks are the files `tests/fixtures/readme-blocks` builds, word for
//! word, with only the dependencies the README documents: a block that changes without its file
//! (or a new block without one) fails here, and a file that stops compiling fails the build.
//! The Architecture section's layout of the runtime is checked against its sources too.

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
            "tests/fixtures/readme-blocks/src/bin/counter.rs",
            "tests/fixtures/readme-blocks/src/bin/client.rs",
            "tests/fixtures/readme-blocks/src/bin/gateway.rs",
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

// The runtime's layout, as the README's Architecture section and `mcp-runtime/src/lib.rs` say:
// folders are layers that import in one direction, with no import circle between files.

/// The layers of `mcp-runtime/src`, in the order they may import each other (a folder or file
/// name; anything else is the facade, last).
const LAYERS: [&[&str]; 11] = [
    &["error", "protocol"],
    &["util"],
    &["context"],
    &["declare"],
    &["middleware"],
    &["auth"],
    &["tasks", "skills"],
    &["server"],
    &["serve"],
    &["transport"],
    &[],
];

/// One source file of the runtime: its module path and what it refers to in the crate (a
/// name `lib.rs` re-exports counted as the module it comes from).
struct Source {
    file: String,
    module: Vec<String>,
    lines: usize,
    refers_to: Vec<Vec<String>>,
}

fn layer_of(module: &[String]) -> usize {
    let top = module.first().map(String::as_str).unwrap_or("");
    LAYERS.iter().position(|names| names.contains(&top)).unwrap_or(LAYERS.len() - 1)
}

/// Every `.rs` file under `dir` (the runtime's `src`), with its module path.
fn runtime_sources() -> Vec<Source> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<Source>) {
        for entry in std::fs::read_dir(dir).expect("the runtime's sources") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let mut module: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            out.push(Source {
                file: relative,
                refers_to: references(&text, &module),
                lines: text.lines().count(),
                module,
            });
        }
    }
    let root = workspace_root().join("mcp-runtime/src");
    let mut sources = Vec::new();
    walk(&root, &root, &mut sources);
    let facade = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    let reexports = reexports(&facade);
    assert!(reexports.len() > 30, "found only {} re-exports in lib.rs", reexports.len());
    for source in &mut sources {
        for path in &mut source.refers_to {
            // A re-export of a re-export (the prelude's) takes a second look.
            for _ in 0..2 {
                if let Some((alias, origin)) = reexports.iter().find(|(alias, _)| path.starts_with(alias)) {
                    path.splice(..alias.len(), origin.iter().cloned());
                }
            }
        }
    }
    sources
}

/// What `lib.rs` re-exports (`pub use a::b::{C, D as E}`, at its root or in the modules it
/// writes inline, such as `http`): each name as the crate path it is reached by (`["E"]`,
/// `["http", "C"]`) and the path it comes from (`["a", "b", "D"]`). Without this, an import
/// of `crate::HttpOptions` from a low layer would look like one of `lib.rs`, which every
/// file may use.
fn reexports(facade: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let code: String = facade
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("#"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut found = Vec::new();
    let mut inline: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut module_depths: Vec<usize> = Vec::new();
    let mut rest = code.as_str();
    while !rest.is_empty() {
        let word_at = rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len());
        rest = &rest[word_at..];
        if let Some(after) = rest.strip_prefix("pub mod ").or_else(|| rest.strip_prefix("mod ")) {
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let after = after[name.len()..].trim_start();
            if let Some(inside) = after.strip_prefix('{') {
                inline.push(name);
                depth += 1;
                module_depths.push(depth);
                rest = inside;
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("pub use ") {
            let end = after.find(';').unwrap_or(after.len());
            for (alias, origin) in use_tree(&after[..end]) {
                let mut reached = inline.clone();
                reached.push(alias);
                found.push((reached, origin));
            }
            rest = &after[end..];
            continue;
        }
        match rest.chars().next() {
            Some('{') => depth += 1,
            Some('}') => {
                if module_depths.last() == Some(&depth) {
                    module_depths.pop();
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        rest = rest.get(rest.chars().next().map_or(0, char::len_utf8)..).unwrap_or("");
    }
    found
}

/// The names a `use` tree brings in (`a::{b::C, D as E}`), each with the crate path it
/// names (`crate::` and `self::` dropped; an outside crate's path kept as it is).
fn use_tree(tree: &str) -> Vec<(String, Vec<String>)> {
    let tree = tree.trim();
    let (prefix, items) = match tree.find('{') {
        Some(open) => (&tree[..open], tree[open + 1..tree.rfind('}').unwrap_or(tree.len())].to_owned()),
        None => match tree.rfind("::") {
            Some(at) => (&tree[..at + 2], tree[at + 2..].to_owned()),
            None => ("", tree.to_owned()),
        },
    };
    let prefix: Vec<String> = prefix
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "crate" && *s != "self")
        .map(str::to_owned)
        .collect();
    let mut found = Vec::new();
    // Nested braces are split at the top level only.
    let (mut level, mut start, mut parts) = (0, 0, Vec::new());
    for (at, c) in items.char_indices() {
        match c {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                parts.push(&items[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&items[start..]);
    for part in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        if part.contains('{') {
            for (alias, origin) in use_tree(part) {
                let mut full = prefix.clone();
                full.extend(origin);
                found.push((alias, full));
            }
            continue;
        }
        let (path, alias) = match part.split_once(" as ") {
            Some((path, alias)) => (path.trim(), alias.trim().to_owned()),
            None => (part, part.rsplit("::").next().unwrap_or(part).trim().to_owned()),
        };
        let mut full = prefix.clone();
        full.extend(path.split("::").map(|s| s.trim().to_owned()).filter(|s| !s.is_empty() && s != "self"));
        found.push((alias, full));
    }
    found
}

/// The crate paths a file's code (not its documentation) names: `crate::a::b`, `super::c`.
fn references(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // Comments and `doc = ".."` attributes are documentation, not imports.
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//") && !l.contains("doc = \"")) {
        let code = line.split(" //").next().unwrap_or("");
        for (start, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
            if code[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut path: Vec<String> = if code[start..].starts_with("crate::") {
                Vec::new()
            } else {
                module[..module.len().saturating_sub(1)].to_vec()
            };
            let rest = &code[start..].split_once("::").unwrap().1;
            for segment in rest.split("::") {
                let name: String = segment.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name.is_empty() || name == "self" {
                    break;
                }
                let more = segment.len() > name.len();
                path.push(name);
                if more {
                    break;
                }
            }
            found.push(path);
        }
    }
    found
}

/// The file a crate path lands in: the longest prefix that is a module of its own.
fn file_of<'a>(path: &[String], sources: &'a [Source]) -> Option<&'a Source> {
    (0..=path.len()).rev().find_map(|n| sources.iter().find(|s| s.module == path[..n]))
}

/// Edges between files, a module and its own submodules aside.
fn imports(sources: &[Source]) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for (from, source) in sources.iter().enumerate() {
        for path in &source.refers_to {
            let Some(target) = file_of(path, sources) else { continue };
            let to = sources.iter().position(|s| std::ptr::eq(s, target)).unwrap();
            let nested = source.module.starts_with(&target.module) || target.module.starts_with(&source.module);
            if from != to && !nested && !edges.contains(&(from, to)) {
                edges.push((from, to));
            }
        }
    }
    edges
}

#[test]
fn the_runtime_layers_import_in_one_direction() {
    let sources = runtime_sources();
    assert!(sources.len() > 40, "found only {} files", sources.len());
    let upward: Vec<String> = imports(&sources)
        .into_iter()
        .filter(|(from, to)| layer_of(&sources[*from].module) < layer_of(&sources[*to].module))
        .map(|(from, to)| format!("{} imports {}", sources[from].file, sources[to].file))
        .collect();
    assert!(upward.is_empty(), "imports from a lower layer to a higher one:\n{}", upward.join("\n"));
}

#[test]
fn no_files_of_the_runtime_import_each_other_in_a_circle() {
    let sources = runtime_sources();
    let edges = imports(&sources);
    // A file is in a circle when it can reach itself.
    let reaches = |start: usize| {
        let mut seen = vec![false; sources.len()];
        let mut stack = vec![start];
        while let Some(at) = stack.pop() {
            for &(_, to) in edges.iter().filter(|(from, _)| *from == at) {
                if to == start {
                    return true;
                }
                if !std::mem::replace(&mut seen[to], true) {
                    stack.push(to);
                }
            }
        }
        false
    };
    let circled: Vec<&str> = (0..sources.len()).filter(|&n| reaches(n)).map(|n| sources[n].file.as_str()).collect();
    assert!(circled.is_empty(), "files in an import circle: {circled:?}");
}

#[test]
fn no_source_file_holds_more_than_one_concern() {
    let limit = |file: &str| match file {
        _ if file.starts_with("transport/http/") => 400,
        _ if file.starts_with("serve/") => 500,
        _ => 700,
    };
    let long: Vec<String> = runtime_sources()
        .iter()
        .filter(|s| s.lines > limit(&s.file))
        .map(|s| format!("{} ({} lines)", s.file, s.lines))
        .collect();
    assert!(long.is_empty(), "files over 700 lines (500 in serve, 400 in transport/http): {long:?}");
}

/// `lib.rs` is the crate's face: its modules, its re-exports and the crate documentation, in
/// under 200 lines; no function or `impl` of its own (the entry points are in `entry/`).
#[test]
fn lib_rs_is_a_facade() {
    let lib = std::fs::read_to_string(workspace_root().join("mcp-runtime/src/lib.rs")).unwrap();
    assert!(lib.lines().count() < 200, "lib.rs has {} lines", lib.lines().count());
    let code: Vec<&str> = lib.lines().map(str::trim_start).filter(|l| !l.starts_with("//")).collect();
    let own: Vec<&&str> =
        code.iter().filter(|l| l.starts_with("impl ") || l.starts_with("fn ") || l.contains(" fn ")).collect();
    assert!(own.is_empty(), "lib.rs defines code of its own: {own:?}");
}

/// The crates the README's first command compiles for GiftGen (`cargo run --release -p
/// gift_genius`): each example is a package of its own, so GiftGen builds HTTP but no
/// telemetry, authorization, Redis, WebSocket or test client; as many crates as the README
/// says. (`cargo tree` lists exactly what a clean build compiles.)
#[test]
fn gift_genius_builds_only_what_it_uses() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .current_dir(workspace_root())
        .args(["tree", "-p", "gift_genius", "-e", "normal,build", "--prefix", "none"])
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut crates: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    crates.sort();
    crates.dedup();
    // The figure the README states, read from it.
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("the README");
    let stated = readme
        .split("`cargo run --release -p gift_genius` compiles ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("the README says how many crates GiftGen compiles");
    assert_eq!(
        crates.len(),
        stated,
        "GiftGen compiles {} crates, the README says {stated}:\n{}",
        crates.len(),
        crates.join("\n")
    );
    for unused in ["redis", "tokio-tungstenite", "opentelemetry", "ring", "reqwest", "jsonschema", "clap"] {
        assert!(!crates.iter().any(|c| c.starts_with(&format!("{unused} "))), "GiftGen compiles {unused}");
    }
    assert!(crates.iter().any(|c| c.starts_with("axum ")), "GiftGen serves HTTP: {crates:?}");
}

/// The defaults in the README's table of what the HTTP edge refuses are the runtime's own:
/// each row's figure read from the README and compared with the constant the runtime's
/// `HttpOptions::default()` uses (a unit test in `options.rs` checks that it does; the
/// behaviour past each limit is tested through the setting, lowered, in `http.rs` and
/// `http/edge.rs`).
#[test]
fn the_http_defaults_are_as_the_readme_states() {
    use mcp_runtime::http;
    use std::time::Duration;
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("the README");
    let table = readme.split("**What the HTTP edge refuses, and how long it waits.**").nth(1).expect("the table");
    let row = |setting: &str| -> String {
        let line = table
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .find(|l| l.contains(&format!("`{setting}`")))
            .unwrap_or_else(|| panic!("no row for `{setting}` in the README's table"));
        line.split('|').nth(2).expect("a default column").trim().to_owned()
    };
    let seconds = |text: &str| -> Duration {
        let (number, unit) = text.split_once(' ').unwrap_or_else(|| panic!("a duration: {text}"));
        let number: u64 = number.replace(',', "").parse().unwrap_or_else(|_| panic!("a number: {text}"));
        match unit {
            "s" => Duration::from_secs(number),
            "min" => Duration::from_secs(number * 60),
            other => panic!("unit {other} in {text}"),
        }
    };
    let count = |text: &str| -> usize { text.replace(',', "").parse().unwrap_or_else(|_| panic!("a count: {text}")) };
    assert_eq!(seconds(&row("head_timeout")), http::DEFAULT_HEAD_TIMEOUT);
    assert_eq!(seconds(&row("body_timeout")), http::DEFAULT_BODY_TIMEOUT);
    assert_eq!(seconds(&row("keep_alive_timeout")), http::DEFAULT_KEEP_ALIVE_TIMEOUT);
    assert_eq!(seconds(&row("session_idle_timeout")), http::DEFAULT_IDLE_TIMEOUT);
    assert_eq!(count(&row("max_requests")), http::DEFAULT_MAX_REQUESTS);
    assert_eq!(count(&row("max_sessions")), http::DEFAULT_MAX_SESSIONS);
    assert_eq!(row("max_connections"), format!("the process's file limit less {}", http::RESERVED_FILES));
    let events = row("MemoryEventStore::with_max_bytes");
    assert_eq!(events, format!("{} MiB in all, 1,024 a stream", http::DEFAULT_MAX_EVENT_BYTES >> 20));
    assert_eq!(row("Server::max_message_size"), "4 MiB");
}

/// The line counts the README states are what `scripts/count-lines` measures now: GiftGen's
/// (the whole example and the seed's scope, code lines and with doc comments) and the
/// comparison table's row for the `notes` block (one tool, one template, one prompt).
#[test]
fn the_line_counts_the_readme_states_are_measured() {
    let count = |file: &str| -> Vec<usize> {
        let output = std::process::Command::new(workspace_root().join("scripts/count-lines"))
            .arg(file)
            .current_dir(workspace_root())
            .output()
            .expect("scripts/count-lines runs (it needs python3 and rustfmt)");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        // "whole example: 54 code lines, 64 non-blank lines", then the seed's scope's line.
        String::from_utf8_lossy(&output.stdout)
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("the README");
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let [whole, whole_all, seed, seed_all] = count("examples/gift_genius/main.rs")[..] else {
        panic!("four counts for GiftGen")
    };
    for stated in [
        format!("{whole} code lines for the whole example and {seed} for the seed's scope"),
        format!("{whole_all} and {seed_all} with the doc comments"),
    ] {
        assert!(readme.contains(&stated), "the README does not say \"{stated}\"");
    }
    let notes = count("tests/fixtures/readme-blocks/src/bin/notes.rs")[0];
    let row = format!("| 1 tool + 1 resource template + 1 prompt | {notes} lines |");
    assert!(readme.contains(&row), "the README's table does not say \"{row}\"");
}
