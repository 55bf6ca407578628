use mcp_runtime::{Server, embed_skills};

fn main() {
    let _server = Server::new("support", "1.0.0").skills(embed_skills!("fixtures/one_skill/refunds/SKILL.md"));
}
