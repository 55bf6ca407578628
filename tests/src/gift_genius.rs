//! What GiftGen (`examples/gift_genius`) must answer, computed here from its catalog file,
//! independently of the server's code; and readers for what it answered.

use serde_json::Value;

use crate::workspace_root;

/// The names of the gifts the catalog holds for `age`, `relationship` and `budget`, priciest
/// first, at most five: what `suggest_gifts` must return.
pub fn expected(age: u64, relationship: &str, budget: Option<f64>) -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join("examples/gift_genius/catalog.json")).expect("catalog");
    let catalog: Vec<Value> = serde_json::from_str(&text).expect("catalog.json is a JSON array");
    assert!((20..=30).contains(&catalog.len()), "about 24 gifts, got {}", catalog.len());
    let mut fits: Vec<&Value> = catalog
        .iter()
        .filter(|g| g["min_age"].as_u64().unwrap() <= age && age <= g["max_age"].as_u64().unwrap())
        .filter(|g| {
            g["relationships"].as_array().unwrap().iter().any(|r| {
                let r = r.as_str().unwrap();
                r == "any" || r.eq_ignore_ascii_case(relationship)
            })
        })
        .filter(|g| budget.is_none_or(|b| g["price_usd"].as_f64().unwrap() <= b))
        .collect();
    fits.sort_by(|a, b| b["price_usd"].as_f64().unwrap().total_cmp(&a["price_usd"].as_f64().unwrap()));
    fits.iter().take(5).map(|g| g["name"].as_str().unwrap().to_owned()).collect()
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

/// The names of the catalog's gifts of `category`, in catalog order: what
/// `gifts://catalog/{category}` must list.
pub fn in_category(category: &str) -> Vec<String> {
    catalog()
        .iter()
        .filter(|g| g["category"] == category)
        .map(|g| g["name"].as_str().expect("a gift has a name").to_owned())
        .collect()
}
