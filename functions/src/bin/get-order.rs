//! Lambda entry point of get-order: its handler over the store.

functions::serve_http_with_store!(functions::get_order::handle);
