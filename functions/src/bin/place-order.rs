//! Lambda entry point of place-order: its handler over the store.

functions::serve_http_with_store!(functions::place_order::handle);
