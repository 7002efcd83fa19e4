//! Lambda entry point of list-orders-by-status: its handler over the store.

functions::serve_http_with_store!(functions::list_orders_by_status::handle);
