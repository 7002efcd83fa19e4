//! Lambda entry point of list-product-orders: its handler over the store.

functions::serve_http_with_store!(functions::list_product_orders::handle);
