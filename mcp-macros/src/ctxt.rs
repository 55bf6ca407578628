//! Collects every error of one macro invocation so that a build reports them all at once.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// An error accumulator. Consume it with [`Ctxt::check`]; dropping it unchecked is a bug in
/// this crate, and panics to say so.
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// Records an error spanning the tokens of `obj`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, message: M) {
        self.push(syn::Error::new_spanned(obj.into_token_stream(), message));
    }

    /// Records an error `syn` produced.
    pub(crate) fn push(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// Ends the collection: `Err` with every error combined, if there were any.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("mcp-runtime-macros bug: a Ctxt was dropped without `check()`");
        }
    }
}

/// The tokens of a `compile_error!` for each error.
pub(crate) fn to_compile_errors(error: syn::Error) -> TokenStream {
    error.to_compile_error()
}
