//! Lambda entry point of ship-order: its handler over the store.

functions::serve_http_with_store!(functions::ship_order::handle);
