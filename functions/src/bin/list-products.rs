//! Lambda entry point of list-products: its handler over the store.

functions::serve_http_with_store!(functions::list_products::handle);
