//! Lambda entry point of update-order-status: its handler over the store.

functions::serve_http_with_store!(functions::update_order_status::handle);
