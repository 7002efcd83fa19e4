//! Lambda entry point of get-order-items: its handler over the store.

functions::serve_http_with_store!(functions::get_order_items::handle);
