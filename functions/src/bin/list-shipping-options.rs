//! Lambda entry point of list-shipping-options: its handler over the store.

functions::serve_http_with_store!(functions::list_shipping_options::handle);
