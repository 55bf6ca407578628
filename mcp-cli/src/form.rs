//! The server's questions (elicitation) asked on the terminal: a form built from the
//! requested schema, one field per line, read from stdin; or declined with `--no-input`.

use std::io::BufRead;
use std::sync::OnceLock;

use mcp_runtime::protocol::ErrorObject;
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

use crate::output::Style;

/// How many times a field is asked again after an answer it cannot take.
const ATTEMPTS: usize = 3;

/// Answers an `elicitation/create`: declined with `--no-input`, else asked on the terminal.
pub(crate) async fn answer(question: Value, no_input: bool) -> Result<Value, ErrorObject> {
    if no_input {
        eprintln!("The server asks: {} (declined: --no-input)", question["message"].as_str().unwrap_or(""));
        return Ok(json!({"action": "decline"}));
    }
    // One question at a time: two forms must not read the same terminal.
    static TERMINAL: OnceLock<Mutex<()>> = OnceLock::new();
    let _turn = TERMINAL.get_or_init(|| Mutex::new(())).lock().await;
    let answer = tokio::task::spawn_blocking(move || ask(&question)).await;
    Ok(answer.unwrap_or_else(|_| json!({"action": "cancel"})))
}

/// Asks `question` on stderr, reading the answers from stdin.
fn ask(question: &Value) -> Value {
    let style = Style::for_stderr();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut read = |prompt: &str| -> Option<String> {
        eprint!("{prompt}");
        lines.next().and_then(Result::ok).map(|l| l.trim().to_owned())
    };
    eprintln!("{} {}", style.bold("The server asks:"), question["message"].as_str().unwrap_or(""));
    if question["mode"] == "url" {
        eprintln!("  open {}", question["url"].as_str().unwrap_or("?"));
        return match read("  done? [y/N] ").as_deref() {
            Some("y" | "yes") => json!({"action": "accept"}),
            Some(_) => json!({"action": "decline"}),
            None => json!({"action": "cancel"}),
        };
    }
    let schema = &question["requestedSchema"];
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let mut content = Map::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let is_required = required.contains(&name.as_str());
        let prompt = field_prompt(name, property, is_required);
        let mut attempts = 0;
        loop {
            let Some(line) = read(&prompt) else { return json!({"action": "cancel"}) };
            match field_value(property, &line) {
                Ok(Some(value)) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Ok(None) if !is_required => break,
                Ok(None) => eprintln!("  {}", style.red("required")),
                Err(why) => eprintln!("  {}", style.red(&why)),
            }
            attempts += 1;
            if attempts == ATTEMPTS {
                return json!({"action": "cancel"});
            }
        }
    }
    match read("Send? [Y/n] ").as_deref() {
        Some("" | "y" | "Y" | "yes") => json!({"action": "accept", "content": content}),
        Some(_) => json!({"action": "decline"}),
        None => json!({"action": "cancel"}),
    }
}

/// `  Title (integer, 1..10) [default]: `
fn field_prompt(name: &str, property: &Value, required: bool) -> String {
    let label = property["title"].as_str().unwrap_or(name);
    let kind = property["type"].as_str().unwrap_or("string");
    let mut hints = vec![kind.to_owned()];
    let choices = choices(property);
    if !choices.is_empty() {
        hints = vec![choices.join("|")];
    }
    if !required {
        hints.push("optional".to_owned());
    }
    let description = property["description"].as_str().map(|d| format!(" {d}")).unwrap_or_default();
    let default = property.get("default").map(|d| format!(" [{}]", d.as_str().map_or(d.to_string(), str::to_owned)));
    format!("  {label}{description} ({}){}: ", hints.join(", "), default.unwrap_or_default())
}

/// The values a string property allows (`enum`, or `oneOf`/`anyOf` of `const`s).
fn choices(property: &Value) -> Vec<String> {
    if let Some(values) = property["enum"].as_array() {
        return values.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    }
    let options = property["oneOf"].as_array().or(property["anyOf"].as_array());
    options.into_iter().flatten().filter_map(|o| o["const"].as_str()).map(str::to_owned).collect()
}

/// Reads one answer as the property's type; `None` for an empty answer without a default.
fn field_value(property: &Value, line: &str) -> Result<Option<Value>, String> {
    if line.is_empty() {
        return Ok(property.get("default").cloned());
    }
    let value = match property["type"].as_str().unwrap_or("string") {
        "boolean" => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => json!(true),
            "n" | "no" | "false" => json!(false),
            _ => return Err("answer yes or no".to_owned()),
        },
        "integer" => json!(line.parse::<i64>().map_err(|_| "a whole number, please".to_owned())?),
        "number" => json!(line.parse::<f64>().map_err(|_| "a number, please".to_owned())?),
        "array" => {
            let items: Vec<&str> = line.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
            json!(items)
        }
        _ => {
            let choices = choices(property);
            if !choices.is_empty() && !choices.iter().any(|c| c == line) {
                return Err(format!("one of {}", choices.join(", ")));
            }
            json!(line)
        }
    };
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_the_field_s_type_or_asked_again() {
        assert_eq!(field_value(&json!({"type": "integer"}), "42"), Ok(Some(json!(42))));
        assert!(field_value(&json!({"type": "integer"}), "forty").is_err());
        assert_eq!(field_value(&json!({"type": "boolean"}), "Yes"), Ok(Some(json!(true))));
        assert_eq!(field_value(&json!({"type": "string", "default": "red"}), ""), Ok(Some(json!("red"))));
        assert_eq!(field_value(&json!({"type": "string"}), ""), Ok(None));
        let colour = json!({"type": "string", "oneOf": [{"const": "red"}, {"const": "blue"}]});
        assert_eq!(field_value(&colour, "blue"), Ok(Some(json!("blue"))));
        assert_eq!(field_value(&colour, "green"), Err("one of red, blue".to_owned()));
    }
}
