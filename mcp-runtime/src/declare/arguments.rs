//! What the code the macros generate for arguments calls: reading each tool argument and
//! describing it, each through one bound placed at the user's parameter type (so a type that
//! cannot be an argument is reported there, once), and telling optional (`Option`) arguments
//! of tools and prompts from required ones. Not public API (reached through `diagnostics`, whose
//! path compile errors then name).

#![allow(missing_docs, missing_debug_implementations, unreachable_pub)]

use std::fmt::{self, Display};
use std::marker::PhantomData;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::declare::prompt::PromptGet;
use crate::declare::resource::ResourceRead;
use crate::protocol::ErrorObject;

/// A tool parameter's type must be readable from JSON ...
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read as an MCP tool argument: it is not `Deserialize`",
    label = "this type is not `serde::Deserialize`",
    note = "derive it (`#[derive(serde::Deserialize, schemars::JsonSchema)]`), or use a type that has it: `String`, numbers, `bool`, `Vec<T>`, `Option<T>`, maps"
)]
pub trait ArgumentValue: DeserializeOwned {}

impl<T: DeserializeOwned> ArgumentValue for T {}

/// ... and described by a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot describe an MCP tool argument: it is not `JsonSchema`",
    label = "this type is not `schemars::JsonSchema`",
    note = "derive it (`#[derive(serde::Deserialize, schemars::JsonSchema)]`), or use a type that has it: `String`, numbers, `bool`, `Vec<T>`, `Option<T>`, maps",
    note = "if it does derive `JsonSchema`: mcp-runtime reads schemas from schemars 1.x, and a derive from another major version (such as `schemars = \"0.8\"`) does not count; depend on `schemars = \"1\"`"
)]
pub trait ArgumentSchema: JsonSchema {}

impl<T: JsonSchema> ArgumentSchema for T {}

/// Reads the value of the current key as an argument of type `T`.
pub fn next_arg<'de, T: ArgumentValue, A: MapAccess<'de>>(map: &mut A) -> Result<T, A::Error> {
    map.next_value::<T>()
}

/// Reads a `#[mcp(flatten)]` struct: all the arguments at once.
pub fn flattened<'de, T: ArgumentValue, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    T::deserialize(deserializer)
}

/// Describes a `#[mcp(flatten)]` struct: its schema is the tool's input schema.
pub fn flattened_schema<T: ArgumentSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

/// The value of an argument the client left out: `None` for an `Option`, else a "missing
/// field" error naming it.
pub fn missing_arg<T: ArgumentValue, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(MissingField(name)).map_err(|e: de::value::Error| E::custom(e))
}

/// A deserializer for an absent field: options read it as `None`, everything else fails.
struct MissingField(&'static str);

impl<'de> Deserializer<'de> for MissingField {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct
        newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Whether an argument of type `T` may be left out: `Option`s may.
pub struct ArgKind<T>(PhantomData<fn() -> T>);

impl<T> ArgKind<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ArgKind(PhantomData)
    }
}

/// What a URI template variable's or a prompt argument's type must be: parsed from a string.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from the string of a URI template variable or prompt argument",
    label = "this type does not implement `FromStr` (with an error that is `Display`)",
    note = "use `String`, a number, `bool`, or implement `std::str::FromStr` for it"
)]
pub trait FromArgumentString: FromStr<Err: Display> {}

impl<T: FromStr<Err: Display>> FromArgumentString for T {}

/// A URI template variable parsed into `T`; the error names the variable.
pub fn parse_variable<T: FromArgumentString>(read: &ResourceRead, name: &str) -> Result<T, ErrorObject> {
    read.parse_variable(name)
}

// The inherent methods serve `Option<T>`; the trait's, every other type (method resolution
// prefers inherent methods, so this needs no specialization and sees through type aliases).
impl<T> ArgKind<Option<T>> {
    pub fn optional(&self) -> bool {
        true
    }

    /// An optional prompt argument, parsed from its string.
    pub fn parse_prompt(&self, get: &PromptGet, name: &str) -> Result<Option<T>, ErrorObject>
    where
        T: FromArgumentString,
    {
        get.parse_optional_argument(name)
    }
}

pub trait RequiredArg<T> {
    fn optional(&self) -> bool {
        false
    }

    /// A required prompt argument, parsed from its string.
    fn parse_prompt(&self, get: &PromptGet, name: &str) -> Result<T, ErrorObject>
    where
        T: FromArgumentString,
    {
        get.parse_argument(name)
    }
}

impl<T> RequiredArg<T> for ArgKind<T> {}

/// The properties of an arguments object, built one argument at a time.
#[derive(Default)]
pub struct ArgsSchema {
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl ArgsSchema {
    /// Adds the argument `name` of type `T`.
    pub fn arg<T: ArgumentSchema>(
        &mut self,
        generator: &mut SchemaGenerator,
        name: &str,
        description: Option<&str>,
        optional: bool,
    ) {
        let mut schema = generator.subschema_for::<T>().to_value();
        if let (Some(description), Value::Object(object)) = (description, &mut schema) {
            object.insert("description".into(), Value::from(description));
        }
        self.properties.insert(name.to_owned(), schema);
        if !optional {
            self.required.push(Value::from(name));
        }
    }

    /// The object schema.
    pub fn finish(self) -> Schema {
        let mut object = Map::new();
        object.insert("type".into(), Value::from("object"));
        object.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            object.insert("required".into(), Value::Array(self.required));
        }
        Schema::from(object)
    }
}

/// What the arguments object is expected to be, for deserialization errors.
pub fn expecting(f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("an object of named arguments")
}
