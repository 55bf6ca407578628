//! The client the official conformance suite drives (`conformance client --command ...`): it
//! takes the test server's URL as its last argument and reads which scenario to play from
//! `MCP_CONFORMANCE_SCENARIO`, the revision from `MCP_CONFORMANCE_PROTOCOL_VERSION` and a
//! scenario's data from `MCP_CONFORMANCE_CONTEXT`. Each scenario is what an application
//! would do with `mcp_runtime::client`; the suite checks what reaches its server.

use std::process::ExitCode;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, OAuth, schema_defaults};
use mcp_runtime::protocol::Revision;
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client <server URL> (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    match play(&scenario, &url, &context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A client speaking the revision the suite asks for (the handshake for dated revisions up
/// to 2025-11-25, none for 2026-07-28).
fn builder() -> ClientBuilder {
    let builder = Client::builder().name("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION"));
    match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok().as_deref().and_then(Revision::parse) {
        Some(revision) => builder.revision(revision),
        None => builder,
    }
}

async fn play(scenario: &str, url: &str, context: &Value) -> Result<(), ClientError> {
    match scenario {
        "initialize" => builder().http(url).await?.close().await,
        "tools_call" => {
            let client = builder().http(url).await?;
            client.list_tools().await?;
            let result = client.call_tool("add_numbers", json!({"a": 5, "b": 3})).await?;
            println!("{result:?}");
            client.close().await
        }
        "elicitation-sep1034-client-defaults" => {
            let client = builder()
                .on_elicitation(|question| async move {
                    let content = schema_defaults(&question["requestedSchema"]);
                    Ok(json!({"action": "accept", "content": content}))
                })
                .http(url)
                .await?;
            client.list_tools().await?;
            client.call_tool("test_client_elicitation_defaults", json!({})).await?;
            client.close().await
        }
        "sse-retry" => {
            let client = builder().http(url).await?;
            client.list_tools().await?;
            client.call_tool("test_reconnection", json!({})).await?;
            client.close().await
        }
        "request-metadata" => {
            // Every capability a client can declare, so that the metadata shows each.
            let client = builder()
                .on_roots(|_| async { Ok(json!({"roots": []})) })
                .on_sampling(|_| async {
                    Ok(json!({"role": "assistant", "content": {"type": "text", "text": ""}, "model": "none"}))
                })
                .on_elicitation(|_| async { Ok(json!({"action": "decline"})) })
                .http(url)
                .await?;
            client.request("tools/list", json!({})).await?;
            client.close().await
        }
        "sep-2322-client-request-state" => {
            let client = builder()
                .on_elicitation(|_| async { Ok(json!({"action": "accept", "content": {"confirmed": true}})) })
                .http(url)
                .await?;
            client.list_tools().await?;
            for tool in
                ["test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"]
            {
                let result = client.call_tool(tool, json!({})).await?;
                println!("{tool}: {result:?}");
            }
            client.close().await
        }
        "http-standard-headers" => {
            let client = builder().http(url).await?;
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, json!({})).await?;
            }
            for resource in client.list_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_prompts().await? {
                client.get_prompt(&prompt.name, json!({})).await?;
            }
            client.close().await
        }
        "http-custom-headers" => {
            let client = builder().http(url).await?;
            client.list_tools().await?;
            for call in context["toolCalls"].as_array().into_iter().flatten() {
                let name = call["name"].as_str().unwrap_or_default();
                client.call_tool(name, &call["arguments"]).await?;
            }
            client.close().await
        }
        "http-invalid-tool-headers" => {
            // Only the tools whose header annotations are valid are listed, so only they are called.
            let client = builder().http(url).await?;
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, json!({"region": "us-west1"})).await?;
            }
            client.close().await
        }
        "json-schema-ref-no-deref" => {
            let client = builder().http(url).await?;
            let tools = client.list_tools().await?;
            println!("{}", serde_json::to_string(&tools).unwrap_or_default());
            client.close().await
        }
        "json-schema-2020-12-preservation" => {
            let client = builder().http(url).await?;
            let tools = client.list_tools().await?;
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or_else(|| ClientError::Protocol("the server lists no json_schema_2020_12_tool".into()))?;
            client.call_tool("json_schema_echo", json!({"schema": focal.input_schema})).await?;
            client.close().await
        }
        "sep-2640-client-no-prefetch" => {
            let client = builder().http(url).await?;
            for skill in client.list_skills().await? {
                println!("{}: {}", skill.uri, skill.frontmatter["description"]);
            }
            client.close().await
        }
        "sep-2640-client-verify-digest" | "sep-2640-client-verify-size" | "sep-2640-client-verify-frontmatter" => {
            let client = builder().http(url).await?;
            for skill in client.list_skills().await? {
                // The skill's other files are read only once SKILL.md proved to be what was listed.
                let main = client.read_skill_file(&skill, &skill.uri).await?;
                println!("loaded {} ({} bytes)", skill.uri, main.len());
                for file in skill.resources.iter().filter(|f| f.uri != skill.uri) {
                    client.read_skill_file(&skill, &file.uri).await?;
                }
            }
            client.close().await
        }
        auth if auth.starts_with("auth/") => {
            let oauth = oauth_for(auth, context)?;
            let client = builder().oauth(oauth).http(url).await?;
            let tools = client.list_tools().await?;
            if tools.iter().any(|t| t.name == "test-tool") {
                client.call_tool("test-tool", json!({})).await?;
            }
            client.close().await
        }
        other => Err(ClientError::Transport(format!("scenario `{other}` is not played by this client"))),
    }
}

/// How the client of authorization scenario `scenario` obtains its tokens: the
/// authorization-code flow in a headless user agent (with a client ID metadata document
/// where the server takes one, else dynamic registration), or the credentials the scenario's
/// context gives.
fn oauth_for(scenario: &str, context: &Value) -> Result<OAuth, ClientError> {
    let given = |key: &str| {
        context[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| ClientError::Auth(format!("{scenario}: the context has no `{key}`")))
    };
    let code = || {
        OAuth::authorization_code("http://localhost:3000/callback", OAuth::headless())
            .client_name("mcp-runtime-conformance-client")
            .client_metadata_url("https://conformance-test.local/client-metadata.json")
    };
    Ok(match scenario {
        "auth/pre-registration" => code().pre_registered(given("client_id")?, Some(given("client_secret")?)),
        "auth/client-credentials-basic" => OAuth::client_credentials(given("client_id")?, given("client_secret")?),
        "auth/wif-jwt-bearer" => OAuth::jwt_bearer(given("valid_jwt")?).pre_registered(given("client_id")?, None),
        "auth/client-credentials-jwt" => {
            OAuth::client_credentials_jwt(given("client_id")?, &given("private_key_pem")?)?
        }
        "auth/enterprise-managed-authorization" => {
            OAuth::identity_assertion(given("idp_token_endpoint")?, given("idp_id_token")?)
                .idp_client_id(given("idp_client_id")?)
                .pre_registered(given("client_id")?, Some(given("client_secret")?))
        }
        "auth/dpop" | "auth/dpop-nonce" => code().dpop(),
        _ => code(),
    })
}
