//! Lambda entry point of get-variant: its handler over the store.

functions::serve_http_with_store!(functions::get_variant::handle);
