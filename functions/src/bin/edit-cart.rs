//! Lambda entry point of edit-cart: its handler over the store.

functions::serve_http_with_store!(functions::edit_cart::handle);
