//! `embed_skills!("dir")`: the skills under a folder of the package, read and checked at
//! compile time (a broken `SKILL.md` is an error on the path, naming its file, line and
//! fault) and carried in the binary (`include_bytes!` per file, so that editing a file rebuilds).

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};

use crate::paths::RuntimePath;

/// `"dir"` and, optionally, `crate = "path"`.
struct Input {
    dir: syn::LitStr,
    krate: Option<syn::Path>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let dir: syn::LitStr = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), "expected the skills' folder, e.g. `embed_skills!(\"skills\")`"))?;
        let mut krate = None;
        if input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            let key: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
            if key != "crate" {
                return Err(syn::Error::new_spanned(key, "the only option is `crate = \"path\"`"));
            }
            input.parse::<syn::Token![=]>()?;
            let path: syn::LitStr = input.parse()?;
            krate =
                Some(path.parse().map_err(|_| {
                    syn::Error::new_spanned(&path, "`crate` must be a path, e.g. `crate = \"my_mcp\"`")
                })?);
            input.parse::<Option<syn::Token![,]>>()?;
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the skills' folder"));
        }
        Ok(Input { dir, krate })
    }
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    match try_expand(input) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn try_expand(input: TokenStream) -> syn::Result<TokenStream> {
    let Input { dir, krate } = syn::parse2(input)?;
    // As `include_bytes!` does: relative to the file that calls the macro.
    let base = here();
    let folder = base.join(dir.value());
    let shown = |path: &Path| path.strip_prefix(&base).unwrap_or(path).display().to_string();
    let written = dir.value();
    if folder.is_file() && folder.file_name().is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md")) {
        // A skill's `SKILL.md`: the folder of skills is two levels up.
        let skill = written.rsplit_once('/').map_or("", |(skill, _)| skill);
        let parent = skill.rsplit_once('/').map_or(".", |(parent, _)| parent);
        let message = format!(
            "`{written}` is a skill's file; give the folder of skills, which holds each skill's folder: \
             `embed_skills!(\"{parent}\")`"
        );
        return Err(syn::Error::new(dir.span(), message));
    }
    if !folder.is_dir() {
        let message = format!(
            "`{}` is not a folder (the path is read from the folder of the file that names it, {})",
            dir.value(),
            base.display()
        );
        return Err(syn::Error::new(dir.span(), message));
    }
    let skills = mcp_skill_folder::read_skills(&folder).map_err(|e| {
        let message = match e {
            mcp_skill_folder::SkillError::FolderIsASkill { .. } => {
                let written = dir.value();
                let trimmed = written.trim_end_matches('/');
                let parent = trimmed.rsplit_once('/').map_or(".", |(parent, _)| parent);
                format!(
                    "`{written}` is itself a skill (it holds a `SKILL.md`), not a folder of skills: give the \
                     folder that holds it, `embed_skills!(\"{parent}\")`"
                )
            }
            // Paths relative to the calling file's folder, as the user wrote the folder.
            e => e.to_string().replace(&format!("{}/", base.display()), ""),
        };
        syn::Error::new(dir.span(), message)
    })?;
    if skills.is_empty() {
        let message = format!(
            "no skill under `{}`: a skill is a folder holding a `SKILL.md` (`{}/<name>/SKILL.md`)",
            shown(&folder),
            dir.value()
        );
        return Err(syn::Error::new(dir.span(), message));
    }
    let import = RuntimePath::new(krate).import();
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let skills = skills.iter().map(|skill| {
        let (prefix, name) = (&skill.prefix, &skill.name);
        let files = skill.files.iter().map(|file| {
            let path = &file.path;
            let disk = absolute(&file.disk).to_string_lossy().into_owned();
            quote!((#path, ::core::include_bytes!(#disk) as &[u8]))
        });
        quote!(__mcp::__private::embedded_skill(#prefix, #name, &[#(#files),*]))
    });
    Ok(quote!({
        #import
        const SKILLS: &[__mcp::skills::EmbeddedSkill] = &[#(#skills),*];
        __mcp::__private::embedded_skills(SKILLS)
    }))
}

/// The folder of the file the macro is called from (where `include_bytes!` would look), or the
/// package's root when the compiler does not say.
fn here() -> PathBuf {
    let file = proc_macro::Span::call_site().local_file();
    match file.as_deref().and_then(Path::parent) {
        Some(folder) => folder.to_owned(),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()),
    }
}
