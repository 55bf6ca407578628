//! What GiftGen (`examples/gift_genius`) must answer, worked out by hand from its catalog file
//! (not by running a filter like the server's), and readers for what it answered.

use serde_json::Value;

use crate::workspace_root;

/// What `suggest_gifts` must return for `age`, `relationship` and `budget`: the names of the
/// gifts for that age, for anyone or for that relationship, within the budget, priciest first
/// (ties in catalog order), at most five. Only the cases the tests ask are known here.
///
/// # Panics
///
/// For a case nobody worked out.
#[must_use]
pub fn expected(age: u64, relationship: &str, budget: Option<f64>) -> Vec<String> {
    let names: &[&str] = match (age, relationship, budget) {
        // Twelve gifts fit; the escape room ($95) beats the novels and the blanket ($89 each).
        (30, "sister", Some(100.0)) => &[
            "Escape room voucher",
            "Award-winning novel box set",
            "Weighted blanket",
            "Instant camera",
            "Beginner ukulele",
        ],
        // Eight gifts fit an 8-year-old nephew; the atlas, watercolours and plush are cheapest.
        (8, "nephew", None) => &[
            "Zoo keeper for a day",
            "Instant camera",
            "Building bricks space station",
            "Beginner ukulele",
            "Wooden marble run",
        ],
        // Seventeen gifts fit a friend of 40; the headphones ($249) lead.
        (40, "friend", None) => &[
            "Noise-cancelling headphones",
            "E-reader with warm light",
            "Bird-watching binoculars",
            "Pottery class for two",
            "Cast-iron dutch oven",
        ],
        // Without a budget, a sister of 30 gets the dearest of the twelve.
        (30, "sister", None) => &[
            "Noise-cancelling headphones",
            "E-reader with warm light",
            "Pottery class for two",
            "Escape room voucher",
            "Award-winning novel box set",
        ],
        // No gift for a 3-year-old colleague costs $5 or less.
        (3, "colleague", Some(5.0)) => &[],
        other => panic!("nobody worked out what GiftGen suggests for {other:?}"),
    };
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// The gift names in a `suggest_gifts` structured result (`{"suggestions": [...]}`).
pub fn names(structured: &Value) -> Vec<String> {
    structured["suggestions"]
        .as_array()
        .unwrap_or_else(|| panic!("no suggestions in {structured:#}"))
        .iter()
        .map(|g| g["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// The JSON of a result's first text block: what a client without structured output reads.
///
/// # Panics
///
/// When the result has no text block, or its text is not JSON.
#[must_use]
pub fn text_json(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block in {result:#}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the text is not JSON ({e}): {text}"))
}

/// The text blocks of a tool result, joined.
pub fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content in {result:#}"))
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

/// The catalog (`examples/gift_genius/catalog.json`), parsed: what `gifts://catalog` holds.
pub fn catalog() -> Vec<Value> {
    let text = std::fs::read_to_string(workspace_root().join("examples/gift_genius/catalog.json")).expect("catalog");
    serde_json::from_str(&text).expect("catalog.json is a JSON array")
}

/// The catalog's entry named `name`, as GiftGen sends a gift (every field), normalised.
///
/// # Panics
///
/// When the catalog has no such gift.
pub fn gift(name: &str) -> Value {
    let entry = catalog().into_iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no gift {name:?}"));
    normalised(&entry)
}

/// What `suggest_gifts` must send for `age`, `relationship` and `budget`, whole: the gifts
/// [`expected`] names, each as the catalog holds it, normalised.
pub fn suggestions(age: u64, relationship: &str, budget: Option<f64>) -> Value {
    let gifts: Vec<Value> = expected(age, relationship, budget).iter().map(|name| gift(name)).collect();
    serde_json::json!({ "suggestions": gifts })
}

/// The books, in catalog order, worked out by hand from the catalog file: what
/// `gifts://catalog/books` must list.
pub const BOOKS: [&str; 4] = [
    "Illustrated atlas of the world",
    "Award-winning novel box set",
    "Cookbook of world street food",
    "Poetry anthology, clothbound",
];

/// What `gifts://catalog/books` must hold, whole: [`BOOKS`], each as the catalog holds it.
pub fn books() -> Value {
    Value::Array(BOOKS.iter().map(|name| gift(name)).collect())
}

/// `value` with every number that is a whole float written as an integer (`95.0` as `95`):
/// what a JavaScript client reads back, so that JSON from any client compares.
pub fn normalised(value: &Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9e15 => Value::from(f as i64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(normalised).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), normalised(v))).collect()),
        other => other.clone(),
    }
}
