use mcp_runtime::{Server, embed_skills};

fn main() {
    let _one = Server::new("a", "1.0.0").skills(embed_skills!(skills));
    let _two = Server::new("b", "1.0.0").skills(embed_skills!("fixtures/no_skill", prefix = "x"));
}
