//! The fixtures the official MCP conformance suite calls, declared as ordinary user code:
//! tools of every content kind, logging, progress, sampling, elicitation, a tool that closes
//! its SSE stream mid-call, resources (text, binary, subscribable, a template) and prompts.
//!
//! `cargo run --example conformance_server -- --http 127.0.0.1:3001` serves it at
//! `http://127.0.0.1:3001/mcp`; without flags it serves stdio.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::Role;
use mcp_runtime::{AskError, Elicitation, SamplingRequest};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A 1×1 red PNG.
const PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The same PNG, base64-encoded, as image content carries it.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// A WAV file of two silent samples, base64-encoded.
const WAV_BASE64: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA";

fn image() -> Content {
    Content::image(PNG_BASE64, "image/png")
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/// Returns a simple text response.
#[mcp_tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1×1 PNG image.
#[mcp_tool]
fn test_image_content() -> Content {
    image()
}

/// Returns a short WAV audio clip.
#[mcp_tool]
fn test_audio_content() -> Content {
    Content::audio(WAV_BASE64, "audio/wav")
}

/// Returns an embedded text resource.
#[mcp_tool]
fn test_embedded_resource() -> Content {
    let text = "This is an embedded resource content.";
    Content::resource(ResourceContents::text("test://embedded-resource", Some("text/plain".into()), text))
}

/// Returns text, an image and an embedded resource.
#[mcp_tool]
fn test_multiple_content_types() -> Vec<Content> {
    let json = json!({"test": "data", "value": 123}).to_string();
    vec![
        Content::text("Multiple content types test:"),
        image(),
        Content::resource(ResourceContents::text(
            "test://mixed-content-resource",
            Some("application/json".into()),
            json,
        )),
    ]
}

/// Sends three log messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    "Tool with logging executed successfully"
}

/// Reports progress 0, 50 and 100 out of 100.
#[mcp_tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(progress, Some(100.0), None).await;
    }
    "Tool with progress executed successfully"
}

/// Always fails, with `isError`.
#[mcp_tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Asks the client's model to answer a prompt.
#[mcp_tool]
async fn test_sampling(
    /// The prompt to send to the model
    prompt: String,
    ctx: Context,
) -> Result<String, AskError> {
    let answer = ctx.sample(SamplingRequest::new(100).user(prompt)).await?;
    Ok(format!("LLM response: {}", answer.text().unwrap_or("(no text)")))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Says what the user did with an elicitation.
fn outcome<T: Serialize>(elicitation: Elicitation<T>) -> String {
    match elicitation {
        Elicitation::Accept(content) => format!("action=accept, content={}", json!(content)),
        Elicitation::Decline => "action=decline".into(),
        Elicitation::Cancel => "action=cancel".into(),
    }
}

/// Asks the user for a name and an email address.
#[mcp_tool]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    ctx: Context,
) -> Result<String, AskError> {
    Ok(format!("User response: {}", outcome(ctx.elicit::<UserInfo>(message).await?)))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct WithDefaults {
    /// User name
    #[serde(default = "defaults::name")]
    name: String,
    /// User age
    #[serde(default = "defaults::age")]
    age: i64,
    /// User score
    #[serde(default = "defaults::score")]
    score: f64,
    /// User status
    #[serde(default)]
    status: Status,
    /// Verification status
    #[serde(default = "defaults::verified")]
    verified: bool,
}

mod defaults {
    pub(crate) fn name() -> String {
        "John Doe".into()
    }
    pub(crate) fn age() -> i64 {
        30
    }
    pub(crate) fn score() -> f64 {
        95.5
    }
    pub(crate) fn verified() -> bool {
        true
    }
}

/// Asks for a form whose every field has a default (SEP-1034).
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, AskError> {
    let answer = ctx.elicit::<WithDefaults>("Please review and update the form fields with defaults").await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledOption {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Enums {
    /// Choose an option
    untitled_single: Untitled,
    /// Choose a titled option
    titled_single: TitledOption,
    /// Choose a legacy option
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Legacy,
    /// Choose options
    untitled_multi: Vec<Untitled>,
    /// Choose titled options
    titled_multi: Vec<TitledChoice>,
}

/// Asks for a form with every kind of enum field (SEP-1330).
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, AskError> {
    let answer = ctx.elicit::<Enums>("Please select options from the enum fields").await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

/// Tool with JSON Schema 2020-12 features
#[mcp_tool(input_schema = json!({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"}
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
}))]
fn json_schema_2020_12_tool(
    name: Option<String>,
    address: Option<serde_json::Value>,
    #[mcp(rename = "contactMethod")] contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
) -> String {
    let contact = match contact_method.as_deref() {
        Some("phone") => phone.unwrap_or_default(),
        _ => email.unwrap_or_default(),
    };
    format!("name={}, address={}, contact={contact}", name.unwrap_or_default(), address.unwrap_or_default())
}

/// Closes its SSE stream mid-call; the client reconnects and gets the result.
#[mcp_tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

// ---------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------

/// A static text resource.
#[mcp_resource("test://static-text", mime = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1×1 PNG).
#[mcp_resource("test://static-binary", mime = "image/png")]
fn static_binary() -> Vec<u8> {
    PNG.to_vec()
}

/// A resource clients may subscribe to.
#[mcp_resource("test://watched-resource", mime = "text/plain", subscribe)]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// Data for an id.
#[mcp_resource("test://template/{id}/data", mime = "application/json")]
fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// ---------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------

/// A simple prompt without arguments.
#[mcp_prompt]
fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with two required arguments.
#[mcp_prompt(complete(arg1 = |typed| starting_with(typed, ["paris", "park", "party"])))]
fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt embedding a resource.
#[mcp_prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[mcp(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    let text = "Embedded resource content for testing.";
    let embedded = ResourceContents::text(resource_uri, Some("text/plain".into()), text);
    vec![
        PromptMessage { role: Role::User, content: Content::resource(embedded) },
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[mcp_prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![PromptMessage { role: Role::User, content: image() }, PromptMessage::user("Please analyze the image above.")]
}

fn main() -> mcp_runtime::Result<()> {
    Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION")).client_logging().run()
}
