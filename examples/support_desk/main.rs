//! A support desk that carries a skill: `skills/billing/refunds` (a `SKILL.md`, the policy it
//! refers to, a script), checked and embedded when the binary is built (`embed_skills!`), and
//! a tool the skill tells the model to call. A 2026-07-28 client lists the skill with
//! `skills/list`, reads its files with `resources/read` and browses its folders with
//! `resources/directory/read` (the skills extension is a draft: experimental).

use mcp_runtime::prelude::*;

/// Whether an order delivered `days` days ago is inside the 30-day refund window.
#[mcp_tool(read_only)]
fn refund_window(
    /// Days since the order was delivered
    days: u32,
) -> String {
    if days <= 30 {
        format!("Inside the window: {} days left.", 30 - days)
    } else {
        format!("Outside the window by {} days: no refund.", days - 30)
    }
}

fn server() -> Server {
    Server::new("support-desk", env!("CARGO_PKG_VERSION")).skills(mcp_runtime::embed_skills!("skills"))
}

fn main() -> mcp_runtime::Result<()> {
    server().run()
}

/// The skill, served in memory through `mcp_runtime::testing::TestClient`.
#[cfg(test)]
mod tests {
    use mcp_runtime::protocol::Revision;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    const SKILL: &str = "skill://billing/refunds/SKILL.md";

    async fn client() -> TestClient {
        TestClient::connect_as(super::server(), Revision::V2026_07_28).await.unwrap()
    }

    #[tokio::test]
    async fn the_skill_is_declared_listed_and_got_with_digests() {
        let client = client().await;
        let capabilities = client.server_capabilities().await.unwrap();
        assert_eq!(capabilities["extensions"]["io.modelcontextprotocol/skills"], json!({"directoryRead": true}));
        // Digests and sizes as `sha256sum` and `wc -c` give them for the files in `skills/`.
        let entry = json!({
            "uri": SKILL,
            "frontmatter": {
                "name": "refunds",
                "description": "Decides whether an order may be refunded and drafts the refund note, following the shop's policy.",
                "license": "MIT",
                "metadata": {"owner": "support"},
            },
            "resources": [
                {
                    "uri": SKILL,
                    "digest": "sha256:0e2a7e9cf237b66c0d75816cd3611d977dd677b1abc59fe5f25a6501be2af8d1",
                    "size": 384,
                },
                {
                    "uri": "skill://billing/refunds/references/policy.md",
                    "digest": "sha256:14edaf188737587919b824d4fa16f4a2f8f60fc6685b8ee8d7f6c3449615e95f",
                    "size": 147,
                },
                {
                    "uri": "skill://billing/refunds/scripts/note.sh",
                    "digest": "sha256:e75efd55ab77986595714e4346e51213d5dc3ea34ae8ad5fe9bf012d082cc4a1",
                    "size": 126,
                },
            ],
        });
        assert_eq!(client.get_skill(SKILL).await.unwrap(), entry);
        assert_eq!(client.list_skills().await.unwrap(), [entry]);
    }

    #[tokio::test]
    async fn the_skill_s_files_and_folders_are_readable() {
        let client = client().await;
        let read = client.read_resource("skill://billing/refunds/references/policy.md").await.unwrap();
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
        assert!(read["contents"][0]["text"].as_str().unwrap().starts_with("# Refund policy\n"));
        let root = client.read_directory("skill://billing/refunds").await.unwrap();
        let listed: Vec<(&str, &str)> =
            root.iter().map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap())).collect();
        assert_eq!(
            listed,
            [
                ("skill://billing/refunds/SKILL.md", "text/markdown"),
                ("skill://billing/refunds/references", "inode/directory"),
                ("skill://billing/refunds/scripts", "inode/directory"),
            ]
        );
        // `SKILL.md` is listed as a resource, named and described as its front matter says.
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.len(), 1);
        assert_eq!((&resources[0]["uri"], &resources[0]["name"]), (&json!(SKILL), &json!("refunds")));
    }

    #[tokio::test]
    async fn the_tool_the_skill_names_answers() {
        let client = client().await;
        let inside = client.call_tool("refund_window", json!({"days": 12})).await.unwrap();
        assert_eq!(inside["content"][0]["text"], "Inside the window: 18 days left.");
        let outside = client.call_tool("refund_window", json!({"days": 45})).await.unwrap();
        assert_eq!(outside["content"][0]["text"], "Outside the window by 15 days: no refund.");
    }
}
