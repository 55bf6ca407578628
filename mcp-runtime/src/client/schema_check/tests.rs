//! The validator's own cases, and every verdict compared with a general validator's.

mod cases {
    use serde_json::json;

    use super::super::*;

    fn broken(schema: Value, value: Value) -> Vec<String> {
        violations(&schema, &value).expect("a schema")
    }

    #[test]
    fn each_violation_is_named_with_its_place() {
        let schema = json!({
            "type": "object", "required": ["name", "due"], "additionalProperties": false,
            "properties": {"name": {"type": "string", "minLength": 2}, "due": {"type": ["string", "null"]},
                "count": {"type": "integer", "minimum": 0}},
        });
        assert!(broken(schema.clone(), json!({"name": "ab", "due": null, "count": 3})).is_empty());
        assert!(
            broken(schema.clone(), json!({"name": "ab", "due": "x", "count": 3.0})).is_empty(),
            "3.0 is an integer"
        );
        let errors = broken(schema, json!({"name": "a", "count": -1, "extra": 1}));
        assert_eq!(
            errors,
            [
                "at ``: \"due\" is a required property",
                "at `/count`: -1 is less than the minimum of 0",
                "at `/name`: \"a\" is shorter than 2 characters",
                "at ``: additional properties are not allowed (\"extra\" unexpected)",
            ]
        );
    }

    #[test]
    fn refs_combinators_and_conditions_apply() {
        let schema = json!({
            "$defs": {"Status": {"enum": ["open", "done"]}, "a/b": {"const": 1}},
            "type": "object",
            "properties": {
                "status": {"anyOf": [{"$ref": "#/$defs/Status"}, {"type": "null"}]},
                "one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]},
                "slash": {"$ref": "#/$defs/a~1b"},
                "kind": {"type": "string"},
            },
            "if": {"properties": {"kind": {"const": "dated"}}, "required": ["kind"]},
            "then": {"required": ["due"]},
        });
        assert!(broken(schema.clone(), json!({"status": null, "one": 2, "slash": 1.0})).is_empty());
        let errors = broken(schema, json!({"status": "lost", "one": 7, "slash": 2, "kind": "dated"}));
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors.iter().any(|e| e.starts_with("at `/status`: \"lost\" is not valid under any")), "{errors:?}");
        assert!(errors.contains(&"at `/slash`: 1 was expected, not 2".to_owned()), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("valid under 2 of the schemas of `oneOf`")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("\"due\" is a required property")), "{errors:?}");
    }

    #[test]
    fn unevaluated_properties_see_what_the_subschemas_evaluated() {
        let schema = json!({
            "allOf": [{"properties": {"a": true}}], "properties": {"b": true},
            "unevaluatedProperties": false,
        });
        assert!(broken(schema.clone(), json!({"a": 1, "b": 2})).is_empty());
        assert_eq!(
            broken(schema, json!({"a": 1, "c": 3})),
            ["at ``: unevaluated properties are not allowed (\"c\" unexpected)"]
        );
    }

    #[test]
    fn arrays_tuples_and_uniqueness() {
        let schema = json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"},
            "uniqueItems": true, "maxItems": 3});
        assert!(broken(schema.clone(), json!(["a", 1, 2])).is_empty());
        let errors = broken(schema, json!(["a", 1, 1.0, "x"]));
        assert!(errors.contains(&"at ``: has more than 3 items".to_owned()), "{errors:?}");
        assert!(errors.contains(&"at ``: has items that are not unique".to_owned()), "{errors:?}");
        assert!(errors.contains(&"at `/3`: \"x\" is not of type \"integer\"".to_owned()), "{errors:?}");
    }

    #[test]
    fn a_schema_that_is_not_one_is_an_error_naming_where() {
        for (schema, said) in [
            (json!({"type": "text"}), "#/type"),
            (json!({"properties": {"a": 3}}), "#/properties/a"),
            (json!({"$ref": "#/$defs/Missing"}), "names no schema"),
            (json!({"$ref": "https://example.com/other.json"}), "names no schema"),
            (json!({"pattern": "("}), "not a pattern"),
            (json!({"anyOf": []}), "#/anyOf"),
            (json!({"minLength": -1}), "#/minLength"),
            (json!({"$dynamicRef": "#meta"}), "not supported"),
        ] {
            let error = compiles(&schema).unwrap_err();
            assert!(error.contains(said), "{schema}: {error}");
        }
        assert_eq!(compiles(&json!({"format": "date-time", "x-vendor": {"anything": 1}})), Ok(()));
    }

    #[test]
    fn a_ref_that_loops_is_a_violation_not_a_stack_overflow() {
        let errors = broken(json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}), json!(1));
        assert!(errors[0].contains("nested more than"), "{errors:?}");
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(broken(json!({"enum": [1, 2.5]}), json!(1.0)).is_empty());
        assert!(broken(json!({"multipleOf": 0.1}), json!(0.3)).is_empty());
        assert!(!broken(json!({"multipleOf": 3}), json!(10)).is_empty());
        assert!(!broken(json!({"exclusiveMaximum": 10}), json!(10)).is_empty());
    }
}

/// Every verdict compared with a general validator's (the `jsonschema` crate), on the schemas
/// schemars makes for a range of Rust types (2020-12 for reading and for writing, and
/// draft-07) and on written schemas using the other keywords, each against a pool of values:
/// samples of the types, each with every member removed or replaced, and values of every kind.
mod against_a_general_validator {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use schemars::generate::SchemaSettings;
    use serde::Serialize;
    use serde_json::json;

    use super::super::*;

    #[derive(Serialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Open,
        Done,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(tag = "kind")]
    enum Shape {
        Circle { r: f64 },
        Square { side: u32 },
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(untagged)]
    enum Either {
        Number(i32),
        Text(String),
    }

    #[derive(Serialize, JsonSchema)]
    struct Extra {
        color: String,
    }

    #[derive(Serialize, JsonSchema)]
    struct Task {
        title: String,
        due: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(default)]
        done: bool,
        tags: Vec<String>,
        priority: u8,
        weight: f32,
        status: Option<Status>,
        shape: Shape,
        either: Either,
        #[serde(flatten)]
        extra: Extra,
        #[serde(rename = "ID")]
        id: i64,
        counts: BTreeMap<String, u32>,
        pair: (u8, String),
        parent: Option<Box<Task>>,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[schemars(range(min = 1, max = 10))]
        level: u8,
        #[schemars(length(min = 2, max = 4))]
        code: String,
        #[schemars(regex(pattern = r"^[a-z]+$"))]
        word: String,
        #[schemars(length(max = 2))]
        few: Vec<u8>,
    }

    fn task() -> Task {
        Task {
            title: "t".into(),
            due: None,
            note: Some("n".into()),
            done: true,
            tags: vec!["a".into()],
            priority: 3,
            weight: 1.5,
            status: Some(Status::Done),
            shape: Shape::Circle { r: 2.0 },
            either: Either::Text("x".into()),
            extra: Extra { color: "red".into() },
            id: -4,
            counts: BTreeMap::from([("k".into(), 1)]),
            pair: (1, "p".into()),
            parent: None,
        }
    }

    /// `sample`, then `sample` with each member removed or replaced by each of `KINDS`.
    fn variations(sample: &Value) -> Vec<Value> {
        let mut out = vec![sample.clone()];
        if let Value::Object(members) = sample {
            for name in members.keys() {
                let mut without = members.clone();
                without.remove(name);
                out.push(Value::Object(without));
                for kind in kinds() {
                    let mut changed = members.clone();
                    changed.insert(name.clone(), kind);
                    out.push(Value::Object(changed));
                }
            }
            let mut more = members.clone();
            more.insert("unexpected".into(), json!(1));
            out.push(Value::Object(more));
        }
        out.extend(kinds());
        out
    }

    fn kinds() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(0),
            json!(1),
            json!(-1),
            json!(2.0),
            json!(1.5),
            json!(300),
            json!(""),
            json!("ab"),
            json!("abcde"),
            json!("AB1"),
            json!("open"),
            json!([]),
            json!([1, 2, 3]),
            json!([1, "p"]),
            json!(["a", "a"]),
            json!({}),
            json!({"kind": "Circle", "r": 1}),
            json!({"kind": "Square", "side": 1.5}),
            json!({"k": 2}),
            json!({"k": -2}),
        ]
    }

    fn agree(schema: &Value, values: &[Value]) {
        let general = jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        for value in values {
            let ours = violations(schema, value).unwrap_or_else(|e| panic!("{schema}: {e}"));
            assert_eq!(ours.is_empty(), general.is_valid(value), "{value}\nagainst {schema}\nours: {ours:?}");
        }
    }

    fn schemas_of<T: JsonSchema>() -> Vec<Value> {
        [SchemaSettings::draft2020_12(), SchemaSettings::draft2020_12().for_serialize(), SchemaSettings::draft07()]
            .into_iter()
            .map(|settings| settings.into_generator().into_root_schema_for::<T>().to_value())
            .collect()
    }

    #[test]
    fn the_schemas_schemars_makes_get_the_same_verdicts() {
        let samples = [
            (schemas_of::<Task>(), serde_json::to_value(task()).unwrap()),
            (schemas_of::<Strict>(), json!({"level": 5, "code": "abc", "word": "abc", "few": [1]})),
            (schemas_of::<Vec<Option<Status>>>(), serde_json::to_value(vec![Some(Status::Open), None]).unwrap()),
            (
                schemas_of::<Vec<Shape>>(),
                serde_json::to_value(vec![Shape::Circle { r: 1.0 }, Shape::Square { side: 2 }]).unwrap(),
            ),
            (
                schemas_of::<Vec<Either>>(),
                serde_json::to_value(vec![Either::Number(1), Either::Text("a".into())]).unwrap(),
            ),
            (schemas_of::<(u8, Option<i16>)>(), json!([1, null])),
        ];
        for (schemas, sample) in samples {
            let values = variations(&sample);
            for schema in schemas {
                assert_eq!(compiles(&schema), Ok(()), "{schema}");
                agree(&schema, &values);
            }
        }
    }

    #[test]
    fn the_other_keywords_get_the_same_verdicts() {
        let schemas = [
            json!({"if": {"properties": {"k": {"const": 2}}}, "then": {"required": ["a"]}, "else": {"maxProperties": 1}}),
            json!({"dependentRequired": {"k": ["r"]}, "dependentSchemas": {"kind": {"required": ["side"]}}}),
            json!({"contains": {"type": "integer", "minimum": 2}, "minContains": 2, "maxContains": 2}),
            json!({"allOf": [{"properties": {"k": true}}], "unevaluatedProperties": false}),
            json!({"anyOf": [{"properties": {"kind": true}}, {"properties": {"k": true}}], "unevaluatedProperties": {"type": "number"}}),
            json!({"prefixItems": [{"type": "integer"}], "unevaluatedItems": false}),
            json!({"prefixItems": [{"type": "integer"}], "items": false}),
            json!({"uniqueItems": true, "maxItems": 2}),
            json!({"multipleOf": 0.5, "exclusiveMinimum": 0, "exclusiveMaximum": 300}),
            json!({"propertyNames": {"pattern": "^[a-z]$"}, "minProperties": 1}),
            json!({"patternProperties": {"^k": {"type": "integer", "minimum": 0}}, "additionalProperties": false}),
            json!({"not": {"type": ["string", "null"]}}),
            json!({"oneOf": [{"type": "integer"}, {"multipleOf": 0.5}]}),
            json!({"enum": [1, "open", [1, 2, 3], {"k": 2}, null]}),
            json!({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}),
            json!(false),
        ];
        let values = kinds();
        for schema in schemas {
            agree(&schema, &values);
        }
    }
}
