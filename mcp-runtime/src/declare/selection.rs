//! What the builder's `.tool(..)`, `.resource(..)` and `.prompt(..)` (and the handle's `add_*`)
//! take: a descriptor built by hand, or a function declared with a macro, named as itself.
//!
//! A declared function is found by the type of its function item: each declaration registers
//! that type's id next to the code that builds its descriptor. The macros therefore add no name
//! to the user's module that could clash with theirs (a module named like a tool is fine).

use std::any::{TypeId, type_name};

use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::tool::ToolDescriptor;
use crate::error::{Error, ItemKind, Result};

/// One declaration, gathered at link time: the function's item type and how to describe it.
#[derive(Debug)]
#[doc(hidden)]
pub struct Declared<D> {
    /// The id of the declared function's item type.
    pub function: fn() -> TypeId,
    /// Builds the descriptor.
    pub build: fn() -> D,
}

/// A kind of descriptor the macros declare: where its declarations are gathered.
#[doc(hidden)]
pub trait DeclaredKind: Sized + 'static {
    /// The kind, for messages.
    const KIND: ItemKind;
    /// Every declaration of this kind in the program.
    fn declarations() -> &'static [Declared<Self>];
}

/// Every tool declared with `#[mcp_tool]` in the program, gathered at link time.
#[linkme::distributed_slice]
pub static TOOLS: [Declared<ToolDescriptor>];

/// Every resource and template declared with `#[mcp_resource]`.
#[linkme::distributed_slice]
pub static RESOURCES: [Declared<ResourceDescriptor>];

/// Every prompt declared with `#[mcp_prompt]`.
#[linkme::distributed_slice]
pub static PROMPTS: [Declared<PromptDescriptor>];

macro_rules! declared_kind {
    ($($descriptor:ty => $kind:expr, $slice:expr;)*) => {$(
        impl DeclaredKind for $descriptor {
            const KIND: ItemKind = $kind;
            fn declarations() -> &'static [Declared<Self>] {
                &$slice
            }
        }
    )*};
}
declared_kind! {
    ToolDescriptor => ItemKind::Tool, TOOLS;
    ResourceDescriptor => ItemKind::Resource, RESOURCES;
    PromptDescriptor => ItemKind::Prompt, PROMPTS;
}

// Each descriptor's `declared` constructor is written here, beside the lookup it makes, so
// that the descriptors need not know how declarations are gathered.
macro_rules! declared_constructor {
    ($($descriptor:ty => $attribute:literal;)*) => {$(
        impl $descriptor {
            #[doc = concat!("The descriptor `#[", $attribute, "]` made of `function` (the function named as itself), to change")]
            /// it before adding it, or to inspect it; an error if `function` is not so declared.
            pub fn declared<F: Copy + Send + Sync + 'static>(function: F) -> Result<Self> {
                let _ = function;
                declared::<Self, F>()
            }
        }
    )*};
}
declared_constructor! {
    ToolDescriptor => "mcp_tool";
    ResourceDescriptor => "mcp_resource";
    PromptDescriptor => "mcp_prompt";
}

/// Finds the declaration of the function whose item type is `F`.
pub(crate) fn declared<D: DeclaredKind, F: 'static>() -> Result<D> {
    let id = TypeId::of::<F>();
    if let Some(found) = D::declarations().iter().find(|d| (d.function)() == id) {
        return Ok((found.build)());
    }
    let declared_as =
        [declares::<ToolDescriptor>(id), declares::<ResourceDescriptor>(id), declares::<PromptDescriptor>(id)]
            .into_iter()
            .flatten()
            .next();
    Err(Error::NotDeclared { kind: D::KIND, given: type_name::<F>(), declared_as })
}

/// Every declaration of the kind `D` in the program, built (what `Server::new` offers).
pub(crate) fn every_declared<D: DeclaredKind>() -> impl Iterator<Item = D> {
    D::declarations().iter().map(|declared| (declared.build)())
}

/// The kind `D`, if a declaration of that kind has the item type `id`.
fn declares<D: DeclaredKind>(id: TypeId) -> Option<ItemKind> {
    D::declarations().iter().any(|d| (d.function)() == id).then_some(D::KIND)
}

/// What `.tool(..)`, `.resource(..)` and `.prompt(..)` take for the descriptor `D`: the
/// descriptor itself, or a function declared with the matching macro, named as itself
/// (`.tool(add)` for `#[mcp_tool] fn add(..)`).
///
/// Any other value (a function without the macro, a closure, a function declared with another
/// macro) is refused when the server is built, with an error that names it.
///
/// ```
/// use mcp_runtime::{Server, ToolDescriptor, mcp_tool};
///
/// /// Adds two numbers.
/// #[mcp_tool]
/// fn add(a: i64, b: i64) -> String {
///     (a + b).to_string()
/// }
///
/// fn not_a_tool() {}
///
/// assert!(Server::builder("calc", "1.0.0").tool(add).validate().is_ok());
/// let refused = Server::builder("calc", "1.0.0").tool(not_a_tool).validate().unwrap_err();
/// assert!(refused.to_string().contains("not_a_tool"), "{refused}");
/// assert_eq!(ToolDescriptor::declared(add).unwrap().name(), "add");
/// ```
pub trait Selection<D>: Sized {
    #[doc(hidden)]
    fn select(self) -> Result<D>;
}

macro_rules! descriptor_selects_itself {
    ($($descriptor:ty),*) => {$(
        impl Selection<$descriptor> for $descriptor {
            fn select(self) -> Result<$descriptor> {
                Ok(self)
            }
        }
    )*};
}
descriptor_selects_itself!(ToolDescriptor, ResourceDescriptor, PromptDescriptor);

// A function item is a zero-sized `Copy` value of a type of its own, which is what is looked
// up. The descriptors are not `Copy`, so the two impls never overlap.
impl<D: DeclaredKind, F: Copy + Send + Sync + 'static> Selection<D> for F {
    fn select(self) -> Result<D> {
        declared::<D, F>()
    }
}
