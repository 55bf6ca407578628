//! The items of a server mounted in another ([`Server::mount`](crate::Server::mount)): tools and
//! prompts renamed under the mount's prefix, every item marked with its mount.

use crate::declare::item::ItemParts;
use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::tool::ToolDescriptor;

/// What joins the prefix of a mount and the name of a tool or prompt mounted under it:
/// `gifts` and `suggest` make `gifts_suggest`.
pub const MOUNT_SEPARATOR: &str = "_";

/// The name under which `name` is served when mounted under `prefix`.
pub(crate) fn mounted_name(prefix: &str, name: &str) -> String {
    format!("{prefix}{MOUNT_SEPARATOR}{name}")
}

/// Makes `tools`, `resources` and `prompts` items of mount `at`: tools and prompts renamed
/// under `prefix`, each item seeing the mount's states and saying where it came from.
pub(crate) fn adopt(
    prefix: &str,
    at: usize,
    tools: &mut [ToolDescriptor],
    resources: &mut [ResourceDescriptor],
    prompts: &mut [PromptDescriptor],
) {
    let mark = |parts: &mut ItemParts| {
        parts.mounted = Some(at);
        parts.defined_at = format!("{}, mounted under `{prefix}`", parts.defined_at).into();
    };
    for tool in tools {
        tool.tool.name = mounted_name(prefix, &tool.tool.name);
        mark(&mut tool.parts);
    }
    for prompt in prompts {
        prompt.prompt.name = mounted_name(prefix, &prompt.prompt.name);
        mark(&mut prompt.parts);
    }
    for resource in resources {
        mark(&mut resource.parts);
    }
}
