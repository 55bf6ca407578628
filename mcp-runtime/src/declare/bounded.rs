//! Integers limited to a range, for tool arguments: the schema says so and out-of-range
//! values are rejected while the arguments are read.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An integer from `MIN` to `MAX` (inclusive).
///
/// As a tool argument, its schema carries `minimum` and `maximum`, and a value outside the
/// range makes the call an `isError` result naming the argument, before the tool runs.
///
/// ```
/// use mcp_runtime::Bounded;
/// let age: Bounded<0, 120> = serde_json::from_str("42").unwrap();
/// assert_eq!(age.get(), 42);
/// let err = serde_json::from_str::<Bounded<0, 120>>("130").unwrap_err();
/// assert!(err.to_string().contains("from 0 to 120"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bounded<const MIN: i64, const MAX: i64>(i64);

impl<const MIN: i64, const MAX: i64> Bounded<MIN, MAX> {
    /// Fails the build of a program that uses a `Bounded` whose minimum is above its maximum,
    /// which would accept no value. The macros report the bounds written in a parameter's
    /// type at the bounds; this catches the ones they cannot see (a type alias, a field of a
    /// flattened struct, a bound computed by a `const` expression) when the program is built
    /// (`cargo check` does not evaluate it).
    ///
    /// ```compile_fail,E0080
    /// use mcp_runtime::Bounded;
    /// type Percent = Bounded<100, 0>;
    /// let level = Percent::new(50);
    /// ```
    const ACCEPTS_A_VALUE: () = assert!(
        MIN <= MAX,
        "this `Bounded<MIN, MAX>` accepts no value: its minimum is above its maximum; swap the two bounds"
    );

    /// `value`, if it is in range.
    pub const fn new(value: i64) -> Option<Self> {
        let () = Self::ACCEPTS_A_VALUE;
        if MIN <= value && value <= MAX { Some(Bounded(value)) } else { None }
    }

    /// The value.
    pub const fn get(self) -> i64 {
        self.0
    }
}

impl<const MIN: i64, const MAX: i64> fmt::Display for Bounded<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Read from text: a URI template variable (`items://page/{n}`) or a prompt argument.
///
/// ```
/// use mcp_runtime::Bounded;
/// let page: Bounded<1, 100> = "7".parse().unwrap();
/// assert_eq!(page.get(), 7);
/// let err = "700".parse::<Bounded<1, 100>>().unwrap_err();
/// assert_eq!(err.to_string(), "700 is out of range: give a number from 1 to 100");
/// ```
impl<const MIN: i64, const MAX: i64> std::str::FromStr for Bounded<MIN, MAX> {
    type Err = OutOfRange;

    fn from_str(text: &str) -> Result<Self, OutOfRange> {
        let value: i64 = text.trim().parse().map_err(|_| OutOfRange(format!("`{text}` is not a whole number")))?;
        Bounded::new(value)
            .ok_or_else(|| OutOfRange(format!("{value} is out of range: give a number from {MIN} to {MAX}")))
    }
}

/// Why a text is not a [`Bounded`]: not a whole number, or out of its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange(String);

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OutOfRange {}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = i64::deserialize(deserializer)?;
        Bounded::new(value).ok_or_else(|| {
            serde::de::Error::custom(format!("{value} is out of range: give a number from {MIN} to {MAX}"))
        })
    }
}

impl<const MIN: i64, const MAX: i64> Serialize for Bounded<MIN, MAX> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<const MIN: i64, const MAX: i64> JsonSchema for Bounded<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Bounded_{MIN}_{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let () = Self::ACCEPTS_A_VALUE;
        json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX })
    }
}
