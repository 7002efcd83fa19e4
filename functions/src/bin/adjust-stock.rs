//! Lambda entry point of adjust-stock: its handler over the store.

functions::serve_http_with_store!(functions::adjust_stock::handle);
