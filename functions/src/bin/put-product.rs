//! Lambda entry point of put-product: its handler over the store.

functions::serve_http_with_store!(functions::put_product::handle);
