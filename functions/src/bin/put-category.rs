//! Lambda entry point of put-category: its handler over the store.

functions::serve_http_with_store!(functions::put_category::handle);
