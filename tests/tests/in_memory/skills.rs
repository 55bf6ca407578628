//! The skills extension (2026-07-28, a draft) through the in-memory client: a skill read from
//! a folder, listed, got, read file by file and folder by folder; and what is refused.

use std::path::{Path, PathBuf};

use mcp_runtime::Server;
use mcp_runtime::protocol::Revision;
use mcp_runtime::skills::{Skill, SkillError};
use mcp_runtime::testing::{TestClient, TestError};
use serde_json::json;

/// A fresh folder under the system's temporary folder, holding `files` (path, text).
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("mcp-skills-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

const SKILL_MD: &str = "---\nname: refunds\ndescription: Refunds orders.\n---\n# Refunds\n";

fn skills(name: &str) -> PathBuf {
    folder(
        name,
        &[
            ("acme/refunds/SKILL.md", SKILL_MD),
            ("acme/refunds/references/policy.md", "30 days.\n"),
            ("acme/refunds/scripts/eligible.sh", "echo eligible\n"),
        ],
    )
}

async fn client(dir: &Path) -> TestClient {
    TestClient::connect_as(Server::builder("support", "1.0.0").skills_dir(dir), Revision::V2026_07_28).await.unwrap()
}

fn code(error: &TestError) -> i32 {
    error.rpc().map(|e| e.code).unwrap_or_else(|| panic!("a JSON-RPC error, got {error:?}"))
}

#[tokio::test]
async fn a_skill_from_a_folder_is_listed_got_and_read() {
    let dir = skills("served");
    let client = client(&dir).await;
    let capabilities = client.server_capabilities().await.unwrap();
    assert_eq!(capabilities["extensions"]["io.modelcontextprotocol/skills"], json!({"directoryRead": true}));
    assert!(capabilities.get("resources").is_some(), "skills are served as resources");
    let listed = client.request("skills/list", json!({})).await.unwrap();
    assert!(listed.get("ttlMs").is_some() && listed.get("cacheScope").is_some(), "{listed}");
    let entry = &listed["skills"][0];
    assert_eq!(entry["uri"], "skill://acme/refunds/SKILL.md");
    assert_eq!(entry["frontmatter"], json!({"name": "refunds", "description": "Refunds orders."}));
    let resources = entry["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 3);
    assert_eq!(resources[0]["size"], SKILL_MD.len());
    assert!(resources.iter().all(|r| r["digest"].as_str().unwrap().len() == 7 + 64));
    let got = client.request("skills/get", json!({"uri": "skill://acme/refunds/SKILL.md"})).await.unwrap();
    assert_eq!(got["skill"], *entry);
    // SKILL.md is listed as a resource; every file reads.
    let listed = client.list_resources().await.unwrap();
    let skill_md = listed.iter().find(|r| r["uri"] == "skill://acme/refunds/SKILL.md").unwrap();
    assert_eq!((&skill_md["name"], &skill_md["mimeType"]), (&json!("refunds"), &json!("text/markdown")));
    let read = client.read_resource("skill://acme/refunds/references/policy.md").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "30 days.\n");
    // Folders list their direct children, subfolders as inode/directory.
    let root = client.request("resources/directory/read", json!({"uri": "skill://acme/refunds"})).await.unwrap();
    let children: Vec<(&str, &str)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://acme/refunds/SKILL.md", "text/markdown"),
            ("skill://acme/refunds/references", "inode/directory"),
            ("skill://acme/refunds/scripts", "inode/directory"),
        ]
    );
    let scripts = client.request("resources/directory/read", json!({"uri": "skill://acme/refunds/scripts"})).await;
    assert_eq!(scripts.unwrap()["resources"][0]["uri"], "skill://acme/refunds/scripts/eligible.sh");
}

#[tokio::test]
async fn reads_outside_a_skill_and_unknown_skills_are_invalid_params() {
    let dir = skills("refused");
    let client = client(&dir).await;
    for uri in [
        "skill://acme/refunds/../refunds/SKILL.md",
        "skill://acme/refunds/references/..",
        "skill:///etc",
        "skill://acme/refunds//references",
        "skill://acme/refunds/SKILL.md",
        "skill://acme/other",
        "file:///etc",
    ] {
        let error = client.request("resources/directory/read", json!({"uri": uri})).await.unwrap_err();
        assert_eq!(code(&error), -32602, "{uri}");
    }
    for uri in ["skill://acme/refunds/../../etc/passwd", "skill://acme/nothing/SKILL.md"] {
        assert_eq!(code(&client.read_resource(uri).await.unwrap_err()), -32602, "{uri}");
    }
    for uri in ["skill://acme/nothing/SKILL.md", "skill://acme/refunds/references/policy.md"] {
        let error = client.request("skills/get", json!({"uri": uri})).await.unwrap_err();
        assert_eq!(code(&error), -32602, "{uri}");
    }
    let error = client.request("skills/list", json!({"cursor": "not-a-cursor"})).await.unwrap_err();
    assert_eq!(code(&error), -32602);
}

#[test]
fn a_malformed_skill_md_fails_the_start_naming_its_file_and_line() {
    let dir = folder("malformed", &[("refunds/SKILL.md", "---\nname: refunds\ndescription: a: b\n---\n")]);
    let error = Server::builder("support", "1.0.0").skills_dir(&dir).validate().unwrap_err().to_string();
    let file = dir.join("refunds").join("SKILL.md");
    assert!(error.contains(&format!("{}:3:", file.display())), "{error}");
    assert!(error.contains("not YAML"), "{error}");
    let dir = folder("misnamed", &[("refunds/SKILL.md", "---\nname: returns\ndescription: x\n---\n")]);
    let error = Skill::from_dir(dir.join("refunds")).unwrap_err();
    assert!(matches!(&error, SkillError::Frontmatter { fault, .. } if fault.line == 2), "{error}");
    assert!(error.to_string().contains("its folder is `refunds`"), "{error}");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_in_a_skill_is_refused() {
    let dir = folder("linked", &[("refunds/SKILL.md", SKILL_MD)]);
    std::os::unix::fs::symlink("/etc", dir.join("refunds").join("etc")).unwrap();
    let error = Skill::from_dir(dir.join("refunds")).unwrap_err();
    assert!(matches!(error, SkillError::Symlink { .. }), "{error}");
}

#[tokio::test]
async fn a_server_without_skills_declares_no_extension_and_has_no_skill_methods() {
    let client = TestClient::connect_as(Server::builder("plain", "1.0.0"), Revision::V2026_07_28).await.unwrap();
    let capabilities = client.server_capabilities().await.unwrap();
    assert!(capabilities.get("extensions").is_none(), "{capabilities}");
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        assert_eq!(code(&client.request(method, json!({"uri": "skill://x"})).await.unwrap_err()), -32601, "{method}");
    }
}
