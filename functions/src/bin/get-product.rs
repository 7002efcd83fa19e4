//! Lambda entry point of get-product: its handler over the store.

functions::serve_http_with_store!(functions::get_product::handle);
