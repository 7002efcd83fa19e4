//! Lambda entry point of list-customer-orders: its handler over the store.

functions::serve_http_with_store!(functions::list_customer_orders::handle);
