//! Lambda entry point of get-cart: its handler over the store.

functions::serve_http_with_store!(functions::get_cart::handle);
