//! `mcp call`, `mcp read`, `mcp get`, `mcp complete`: one request, its result printed, what
//! the server reports on the way (progress, log messages) shown as it comes, its questions
//! asked on the terminal.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use mcp_runtime::client::{CallOptions, Client, Notification, ProgressReports};
use serde_json::{Map, Value, json};

use crate::args::{Asking, Connect};
use crate::connect::{self, Failure, Target};
use crate::form;
use crate::output::{Style, print_json};

/// Runs `mcp call`.
pub(crate) async fn call(
    positional: &[String],
    save_media: Option<&Path>,
    asking: &Asking,
    args: &Connect,
) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    let Some((tool, words)) = rest.split_first() else {
        return Err(Failure::Usage("no tool named: `mcp call [URL] TOOL [JSON | KEY=VALUE ...]`".to_owned()));
    };
    let client = connected(&target, args, asking).await?;
    let schema = match client.list_tools().await {
        Ok(tools) => match tools.into_iter().find(|t| t.name == *tool) {
            Some(found) => Some(found.input_schema),
            None => return Err(Failure::failed(format!("the server has no tool `{tool}`"))),
        },
        Err(e) => return Err(Failure::failed(format!("tools/list: {e}"))),
    };
    let arguments = arguments(words, schema.as_ref())?;
    let (options, progress) = CallOptions::new().timeout(connect::timeout(args)?).progress();
    let shown = show_progress(progress);
    let result = client.call_tool_with(tool, &arguments, options).await;
    shown.abort();
    clear_progress_line();
    let result = result.map_err(|e| Failure::failed(format!("tools/call `{tool}`: {e}")))?;
    let _ = client.close().await;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    if args.json {
        print_json(&value);
    } else if result.is_error {
        let style = Style::for_stderr();
        eprintln!("{} {}", style.red("tool error:"), blocks_text(&value["content"]));
    } else if let Some(structured) = &result.structured_content {
        print_json(structured);
    } else {
        print_blocks(&value["content"], save_media, tool)?;
    }
    if result.is_error { Err(Failure::Failed(String::new())) } else { Ok(()) }
}

/// Runs `mcp read`.
pub(crate) async fn read(positional: &[String], save_media: Option<&Path>, args: &Connect) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    let [uri] = rest else {
        return Err(Failure::Usage("`mcp read [URL] URI`: give one resource URI".to_owned()));
    };
    let client = connected(&target, args, &Asking { no_input: true }).await?;
    let result = client.read_resource(uri).await.map_err(|e| Failure::failed(format!("resources/read {uri}: {e}")))?;
    let _ = client.close().await;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    if args.json {
        print_json(&value);
        return Ok(());
    }
    for contents in value["contents"].as_array().into_iter().flatten() {
        match (contents["text"].as_str(), contents["blob"].as_str()) {
            (Some(text), _) => println!("{text}"),
            (None, Some(blob)) => {
                let mime = contents["mimeType"].as_str().unwrap_or("application/octet-stream");
                save_or_describe(blob, mime, save_media, "resource")?;
            }
            (None, None) => println!("{}", contents),
        }
    }
    Ok(())
}

/// Runs `mcp get`.
pub(crate) async fn get(positional: &[String], asking: &Asking, args: &Connect) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    let Some((prompt, words)) = rest.split_first() else {
        return Err(Failure::Usage("no prompt named: `mcp get [URL] PROMPT [JSON | KEY=VALUE ...]`".to_owned()));
    };
    // Prompt arguments are strings, whatever they look like.
    let string_schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let arguments = arguments(words, Some(&string_schema))?;
    let client = connected(&target, args, asking).await?;
    let result = client
        .get_prompt(prompt, &arguments)
        .await
        .map_err(|e| Failure::failed(format!("prompts/get `{prompt}`: {e}")))?;
    let _ = client.close().await;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    if args.json {
        print_json(&value);
        return Ok(());
    }
    let style = Style::for_stdout();
    if let Some(description) = &result.description {
        println!("{}", style.dim(description));
    }
    for message in value["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("?");
        println!("{} {}", style.bold(&format!("{role}:")), blocks_text(&json!([message["content"]])));
    }
    Ok(())
}

/// Runs `mcp complete`.
pub(crate) async fn complete(positional: &[String], args: &Connect) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    let usage = || Failure::Usage("`mcp complete [URL] prompt:NAME|resource:TEMPLATE ARGUMENT VALUE`".to_owned());
    let [reference, argument, value] = rest else { return Err(usage()) };
    let reference = if let Some(name) = reference.strip_prefix("prompt:") {
        json!({"type": "ref/prompt", "name": name})
    } else if let Some(uri) = reference.strip_prefix("resource:") {
        json!({"type": "ref/resource", "uri": uri})
    } else {
        return Err(usage());
    };
    let client = connected(&target, args, &Asking { no_input: true }).await?;
    let completion = client
        .complete(reference, argument, value)
        .await
        .map_err(|e| Failure::failed(format!("completion/complete: {e}")))?;
    let _ = client.close().await;
    if args.json {
        print_json(&serde_json::to_value(&completion).unwrap_or(Value::Null));
    } else {
        for value in &completion.values {
            println!("{value}");
        }
        if completion.has_more == Some(true) {
            let total = completion.total.map(|t| format!(" of {t}")).unwrap_or_default();
            eprintln!("(more{total})");
        }
    }
    Ok(())
}

/// Connects with the terminal answering the server's questions, and its log messages shown.
async fn connected(target: &Target, args: &Connect, asking: &Asking) -> Result<Client, Failure> {
    let no_input = asking.no_input;
    let builder = connect::builder(args)?.on_elicitation(move |question| form::answer(question, no_input));
    let client = connect::connect(builder, target).await?;
    let mut notifications = client.notifications();
    tokio::spawn(async move {
        let style = Style::for_stderr();
        while let Some(notification) = notifications.next().await {
            if let Notification::Log { level, logger, data } = notification {
                let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
                let text = data.as_str().map(str::to_owned).unwrap_or_else(|| data.to_string());
                clear_progress_line();
                eprintln!("{}{logger}: {text}", style.yellow(&format!("[{level:?}]").to_lowercase()));
            }
        }
    });
    Ok(client)
}

/// Shows progress reports as a bar on a terminal, as lines otherwise.
fn show_progress(mut reports: ProgressReports) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let terminal = std::io::stderr().is_terminal();
        while let Some(report) = reports.next().await {
            let message = report.message.unwrap_or_default();
            let mut stderr = std::io::stderr().lock();
            match report.total.filter(|t| *t > 0.0) {
                Some(total) if terminal => {
                    let share = (report.progress / total).clamp(0.0, 1.0);
                    let filled = (share * 30.0).round() as usize;
                    let bar = format!("{}{}", "#".repeat(filled), " ".repeat(30 - filled));
                    let _ = write!(stderr, "\r\x1b[2K[{bar}] {:>3.0}% {message}", share * 100.0);
                }
                Some(total) => {
                    let _ = writeln!(stderr, "progress {}/{total} {message}", report.progress);
                }
                None if terminal => {
                    let _ = write!(stderr, "\r\x1b[2K{} {message}", report.progress);
                }
                None => {
                    let _ = writeln!(stderr, "progress {} {message}", report.progress);
                }
            }
            let _ = stderr.flush();
        }
    })
}

fn clear_progress_line() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}

/// Reads a call's arguments: one JSON object, or `key=value` words whose values are read as
/// the schema's property type says (a string property keeps `30` a string), else as JSON
/// when they are JSON, else as strings.
pub(crate) fn arguments(words: &[String], schema: Option<&Value>) -> Result<Map<String, Value>, Failure> {
    if let [object] = words
        && object.trim_start().starts_with('{')
    {
        return match serde_json::from_str(object) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) | Err(_) => Err(Failure::Usage(format!("`{object}` is not a JSON object"))),
        };
    }
    let mut map = Map::new();
    for word in words {
        let Some((key, raw)) = word.split_once('=') else {
            return Err(Failure::Usage(format!(
                "`{word}`: write arguments as `key=value` words, or as one JSON object"
            )));
        };
        let value = if wants_string(schema, key) {
            Value::String(raw.to_owned())
        } else {
            serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
        };
        map.insert(key.to_owned(), value);
    }
    Ok(map)
}

/// Whether the property `key` of `schema` is a string and nothing else.
fn wants_string(schema: Option<&Value>, key: &str) -> bool {
    let Some(schema) = schema else { return false };
    let property = schema["properties"].get(key).unwrap_or(&schema["additionalProperties"]);
    property["type"] == "string" || property["enum"].as_array().is_some_and(|e| e.iter().all(Value::is_string))
}

/// The text of content blocks, others described in brackets.
fn blocks_text(blocks: &Value) -> String {
    let parts: Vec<String> = blocks
        .as_array()
        .into_iter()
        .flatten()
        .map(|block| match block["type"].as_str() {
            Some("text") => block["text"].as_str().unwrap_or_default().to_owned(),
            Some("resource_link") => format!("[link {}]", block["uri"].as_str().unwrap_or("?")),
            Some("resource") => match block["resource"]["text"].as_str() {
                Some(text) => text.to_owned(),
                None => format!("[resource {}]", block["resource"]["uri"].as_str().unwrap_or("?")),
            },
            Some(other) => format!("[{other} {}]", block["mimeType"].as_str().unwrap_or("")),
            None => block.to_string(),
        })
        .collect();
    parts.join("\n")
}

/// Prints a result's content blocks: text as text, media saved or described.
fn print_blocks(blocks: &Value, save_media: Option<&Path>, stem: &str) -> Result<(), Failure> {
    for (index, block) in blocks.as_array().into_iter().flatten().enumerate() {
        match block["type"].as_str() {
            Some("image" | "audio") => {
                let mime = block["mimeType"].as_str().unwrap_or("application/octet-stream");
                save_or_describe(
                    block["data"].as_str().unwrap_or_default(),
                    mime,
                    save_media,
                    &format!("{stem}-{index}"),
                )?;
            }
            _ => println!("{}", blocks_text(&json!([block]))),
        }
    }
    Ok(())
}

/// Saves base64 `data` into `folder` (named from `stem` and the MIME type), or says what it is.
fn save_or_describe(data: &str, mime: &str, folder: Option<&Path>, stem: &str) -> Result<(), Failure> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| Failure::failed(format!("the server sent {mime} that is not base64: {e}")))?;
    let Some(folder) = folder else {
        println!("[{mime}, {} bytes; --save-media DIR saves it]", bytes.len());
        return Ok(());
    };
    let extension = mime.rsplit('/').next().unwrap_or("bin").split(['+', ';']).next().unwrap_or("bin");
    let path: PathBuf = folder.join(format!("{stem}.{extension}"));
    std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::write(&path, &bytes))
        .map_err(|e| Failure::failed(format!("cannot save {}: {e}", path.display())))?;
    println!("[{mime}, {} bytes, saved to {}]", bytes.len(), path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn key_value_words_follow_the_schema_then_json_then_text() {
        let schema = json!({"type": "object", "properties": {"zip": {"type": "string"}, "age": {"type": "integer"}}});
        let map = arguments(&words(&["zip=02139", "age=30", "tags=[\"a\"]", "note=hello"]), Some(&schema)).unwrap();
        assert_eq!(Value::Object(map), json!({"zip": "02139", "age": 30, "tags": ["a"], "note": "hello"}));
        let map = arguments(&words(&[r#"{"age": 30}"#]), Some(&schema)).unwrap();
        assert_eq!(Value::Object(map), json!({"age": 30}));
        assert!(matches!(arguments(&words(&["age"]), None), Err(Failure::Usage(m)) if m.contains("key=value")));
        assert!(
            matches!(arguments(&words(&["{age"]), None), Err(Failure::Usage(m)) if m.contains("not a JSON object"))
        );
    }
}
