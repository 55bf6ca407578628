//! The check of a value against a well-formed schema: each keyword's assertion, the
//! applicators, and what each evaluated (for `unevaluatedProperties` and `unevaluatedItems`).

use std::collections::{HashMap, HashSet};

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::{MAX_DEPTH, count, escape, excerpt, resolve};
use crate::util::schema::is_of_type;

/// One check of a value: the document (for `$ref`), its patterns compiled once, and the
/// violations found.
pub(super) struct Run<'s> {
    root: &'s Value,
    patterns: HashMap<&'s str, Option<Regex>>,
    errors: Vec<String>,
}

/// What a schema evaluated of an object or array it validated, for `unevaluated*`.
#[derive(Default)]
struct Evaluated {
    properties: HashSet<String>,
    /// The leading items evaluated.
    items: usize,
    /// Every item evaluated.
    all_items: bool,
}

impl Evaluated {
    fn merge(&mut self, other: Evaluated) {
        self.properties.extend(other.properties);
        self.items = self.items.max(other.items);
        self.all_items |= other.all_items;
    }
}

impl<'s> Run<'s> {
    pub(super) fn new(root: &'s Value) -> Self {
        Run { root, patterns: HashMap::new(), errors: Vec::new() }
    }

    /// The violations of `value` against the document's root schema.
    pub(super) fn check(mut self, value: &Value) -> Vec<String> {
        self.validate(self.root, value, "", 0);
        self.errors
    }

    fn fail(&mut self, at: &str, message: String) {
        self.errors.push(format!("at `{at}`: {message}"));
    }

    /// Whether `value` conforms to `schema`, its violations not kept; what it evaluated.
    fn passes(&mut self, schema: &'s Value, value: &Value, at: &str, depth: usize) -> (bool, Evaluated) {
        let before = self.errors.len();
        let evaluated = self.validate(schema, value, at, depth);
        let passed = self.errors.len() == before;
        self.errors.truncate(before);
        (passed, evaluated)
    }

    fn pattern(&mut self, pattern: &'s str) -> Option<&Regex> {
        self.patterns.entry(pattern).or_insert_with(|| Regex::new(pattern).ok()).as_ref()
    }

    /// Validates `value` (at `at`, a JSON pointer into the checked value) against `schema`,
    /// keeping each violation; what it evaluated.
    fn validate(&mut self, schema: &'s Value, value: &Value, at: &str, depth: usize) -> Evaluated {
        let mut evaluated = Evaluated::default();
        let object = match schema {
            Value::Bool(true) => return evaluated,
            Value::Bool(false) => {
                self.fail(at, format!("false schema does not allow {}", excerpt(value)));
                return evaluated;
            }
            Value::Object(object) => object,
            _ => return evaluated,
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            if depth >= MAX_DEPTH {
                self.fail(at, format!("`$ref` nested more than {MAX_DEPTH} deep (a schema that loops?)"));
                return evaluated;
            }
            if let Some(target) = resolve(self.root, reference) {
                evaluated.merge(self.validate(target, value, at, depth + 1));
            }
        }
        self.assertions(object, value, at);
        self.applicators(object, value, at, depth, &mut evaluated);
        match value {
            Value::Object(members) => self.object(object, members, at, depth, &mut evaluated),
            Value::Array(items) => self.array(object, items, at, depth, &mut evaluated),
            _ => {}
        }
        evaluated
    }

    /// The keywords that look at `value` alone.
    fn assertions(&mut self, schema: &'s Map<String, Value>, value: &Value, at: &str) {
        if let Some(types) = schema.get("type") {
            let named: Vec<&str> = match types {
                Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                one => one.as_str().into_iter().collect(),
            };
            if !named.iter().any(|t| is_of_type(value, t)) {
                let quoted: Vec<String> = named.iter().map(|t| format!("\"{t}\"")).collect();
                self.fail(at, format!("{} is not of type {}", excerpt(value), quoted.join(" or ")));
            }
        }
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
            && !allowed.iter().any(|a| equal(a, value))
        {
            self.fail(at, format!("{} is not one of {}", excerpt(value), excerpt(&Value::Array(allowed.clone()))));
        }
        if let Some(constant) = schema.get("const")
            && !equal(constant, value)
        {
            self.fail(at, format!("{} was expected, not {}", excerpt(constant), excerpt(value)));
        }
        if let Some(number) = value.as_f64().filter(|_| value.is_number()) {
            self.number(schema, number, value, at);
        }
        if let Some(text) = value.as_str() {
            let length = text.chars().count() as u64;
            if let Some(least) = schema.get("minLength").and_then(count)
                && length < least
            {
                self.fail(at, format!("{} is shorter than {least} characters", excerpt(value)));
            }
            if let Some(most) = schema.get("maxLength").and_then(count)
                && length > most
            {
                self.fail(at, format!("{} is longer than {most} characters", excerpt(value)));
            }
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
                && self.pattern(pattern).is_some_and(|regex| !regex.is_match(text))
            {
                self.fail(at, format!("{} does not match \"{pattern}\"", excerpt(value)));
            }
        }
    }

    fn number(&mut self, schema: &Map<String, Value>, number: f64, value: &Value, at: &str) {
        let limit = |name: &str| schema.get(name).and_then(Value::as_f64);
        let shown = excerpt(value);
        if let Some(minimum) = limit("minimum")
            && number < minimum
        {
            self.fail(at, format!("{shown} is less than the minimum of {}", schema["minimum"]));
        }
        if let Some(maximum) = limit("maximum")
            && number > maximum
        {
            self.fail(at, format!("{shown} is greater than the maximum of {}", schema["maximum"]));
        }
        if let Some(minimum) = limit("exclusiveMinimum")
            && number <= minimum
        {
            self.fail(at, format!("{shown} is less than or equal to the minimum of {}", schema["exclusiveMinimum"]));
        }
        if let Some(maximum) = limit("exclusiveMaximum")
            && number >= maximum
        {
            self.fail(at, format!("{shown} is greater than or equal to the maximum of {}", schema["exclusiveMaximum"]));
        }
        if let Some(divisor) = limit("multipleOf")
            && !is_multiple(value, number, &schema["multipleOf"], divisor)
        {
            self.fail(at, format!("{shown} is not a multiple of {}", schema["multipleOf"]));
        }
    }

    /// The in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`.
    fn applicators(
        &mut self,
        schema: &'s Map<String, Value>,
        value: &Value,
        at: &str,
        depth: usize,
        evaluated: &mut Evaluated,
    ) {
        for sub in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            evaluated.merge(self.validate(sub, value, at, depth));
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            let mut passed = false;
            for sub in any {
                let (ok, seen) = self.passes(sub, value, at, depth);
                if ok {
                    passed = true;
                    evaluated.merge(seen);
                }
            }
            if !passed {
                self.fail(at, format!("{} is not valid under any of the schemas of `anyOf`", excerpt(value)));
            }
        }
        if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
            let mut passing = Vec::new();
            for sub in one {
                let (ok, seen) = self.passes(sub, value, at, depth);
                if ok {
                    passing.push(seen);
                }
            }
            match passing.len() {
                0 => self.fail(at, format!("{} is not valid under any of the schemas of `oneOf`", excerpt(value))),
                1 => evaluated.merge(passing.remove(0)),
                n => self.fail(at, format!("{} is valid under {n} of the schemas of `oneOf`, not one", excerpt(value))),
            }
        }
        if let Some(not) = schema.get("not")
            && self.passes(not, value, at, depth).0
        {
            self.fail(at, format!("{} is valid under the schema of `not`", excerpt(value)));
        }
        if let Some(condition) = schema.get("if") {
            let (holds, seen) = self.passes(condition, value, at, depth);
            let branch = if holds {
                evaluated.merge(seen);
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                evaluated.merge(self.validate(branch, value, at, depth));
            }
        }
    }

    /// A size's limits (`minItems` and `maxItems`, say), the size counting `what`.
    fn size_limits(
        &mut self,
        schema: &Map<String, Value>,
        (least, most): (&str, &str),
        size: u64,
        what: &str,
        at: &str,
    ) {
        if let Some(limit) = schema.get(least).and_then(count)
            && size < limit
        {
            self.fail(at, format!("has fewer than {limit} {what}"));
        }
        if let Some(limit) = schema.get(most).and_then(count)
            && size > limit
        {
            self.fail(at, format!("has more than {limit} {what}"));
        }
    }

    fn object(
        &mut self,
        schema: &'s Map<String, Value>,
        members: &Map<String, Value>,
        at: &str,
        depth: usize,
        evaluated: &mut Evaluated,
    ) {
        let size = members.len() as u64;
        self.size_limits(schema, ("minProperties", "maxProperties"), size, "properties", at);
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !members.contains_key(name) {
                self.fail(at, format!("\"{name}\" is a required property"));
            }
        }
        if let Some(dependent) = schema.get("dependentRequired").and_then(Value::as_object) {
            for (present, needed) in dependent.iter().filter(|(name, _)| members.contains_key(*name)) {
                for name in needed.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !members.contains_key(name) {
                        self.fail(at, format!("\"{name}\" is a required property when \"{present}\" is present"));
                    }
                }
            }
        }
        if let Some(dependent) = schema.get("dependentSchemas").and_then(Value::as_object) {
            let whole = Value::Object(members.clone());
            for (_, sub) in dependent.iter().filter(|(name, _)| members.contains_key(*name)) {
                evaluated.merge(self.validate(sub, &whole, at, depth));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let mut unexpected = Vec::new();
        for (name, member) in members {
            let place = format!("{at}/{}", escape(name));
            let mut matched = false;
            if let Some(sub) = properties.and_then(|p| p.get(name)) {
                matched = true;
                self.validate(sub, member, &place, depth);
            }
            for (pattern, sub) in patterns.into_iter().flatten() {
                if self.pattern(pattern).is_some_and(|regex| regex.is_match(name)) {
                    matched = true;
                    self.validate(sub, member, &place, depth);
                }
            }
            if let Some(names) = schema.get("propertyNames") {
                self.validate(names, &Value::String(name.clone()), &place, depth);
            }
            match schema.get("additionalProperties") {
                Some(_) if matched => {}
                Some(Value::Bool(false)) => unexpected.push(name.as_str()),
                Some(sub) => {
                    matched = true;
                    self.validate(sub, member, &place, depth);
                }
                None => {}
            }
            if matched || schema.get("additionalProperties").is_some() {
                evaluated.properties.insert(name.clone());
            }
        }
        if !unexpected.is_empty() {
            self.fail(at, format!("additional properties are not allowed ({} unexpected)", quoted(&unexpected)));
        }
        if let Some(unevaluated) = schema.get("unevaluatedProperties") {
            let mut refused = Vec::new();
            for (name, member) in members.iter().filter(|(name, _)| !evaluated.properties.contains(*name)) {
                if unevaluated == &Value::Bool(false) {
                    refused.push(name.as_str());
                } else {
                    self.validate(unevaluated, member, &format!("{at}/{}", escape(name)), depth);
                }
            }
            if !refused.is_empty() {
                self.fail(at, format!("unevaluated properties are not allowed ({} unexpected)", quoted(&refused)));
            }
            evaluated.properties.extend(members.keys().cloned());
        }
    }

    fn array(
        &mut self,
        schema: &'s Map<String, Value>,
        items: &[Value],
        at: &str,
        depth: usize,
        evaluated: &mut Evaluated,
    ) {
        let size = items.len() as u64;
        self.size_limits(schema, ("minItems", "maxItems"), size, "items", at);
        if schema.get("uniqueItems") == Some(&Value::Bool(true))
            && items.iter().enumerate().any(|(i, a)| items[i + 1..].iter().any(|b| equal(a, b)))
        {
            self.fail(at, "has items that are not unique".to_owned());
        }
        // 2020-12's `prefixItems` and `items`, or draft-07's `items` array and `additionalItems`.
        let (prefix, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (None, Some(Value::Array(prefix))) => (prefix.as_slice(), schema.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (i, (sub, item)) in prefix.iter().zip(items).enumerate() {
            self.validate(sub, item, &format!("{at}/{i}"), depth);
        }
        evaluated.items = evaluated.items.max(prefix.len().min(items.len()));
        if let Some(rest) = rest {
            for (i, item) in items.iter().enumerate().skip(prefix.len()) {
                self.validate(rest, item, &format!("{at}/{i}"), depth);
            }
            evaluated.all_items = true;
        }
        if let Some(contains) = schema.get("contains") {
            let mut found = 0u64;
            for (i, item) in items.iter().enumerate() {
                found += u64::from(self.passes(contains, item, &format!("{at}/{i}"), depth).0);
            }
            let least = schema.get("minContains").and_then(count).unwrap_or(1);
            if found < least {
                self.fail(at, format!("has {found} items valid under `contains`, fewer than {least}"));
            }
            if let Some(most) = schema.get("maxContains").and_then(count)
                && found > most
            {
                self.fail(at, format!("has {found} items valid under `contains`, more than {most}"));
            }
        }
        if let Some(unevaluated) = schema.get("unevaluatedItems")
            && !evaluated.all_items
        {
            for (i, item) in items.iter().enumerate().skip(evaluated.items) {
                self.validate(unevaluated, item, &format!("{at}/{i}"), depth);
            }
            evaluated.all_items = true;
        }
    }
}

/// JSON equality, numbers by value (`1` equals `1.0`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `value` is a multiple of `divisor`: exactly for integers, else within the
/// rounding of a division of floats.
fn is_multiple(value: &Value, number: f64, divisor_value: &Value, divisor: f64) -> bool {
    if let (Some(v), Some(d)) = (value.as_i64(), divisor_value.as_i64())
        && d != 0
    {
        return v % d == 0;
    }
    let quotient = number / divisor;
    quotient.is_finite() && (quotient - quotient.round()).abs() <= f64::EPSILON * quotient.abs().max(1.0) * 4.0
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
}
