//! Lambda entry point of put-shipping-option: its handler over the store.

functions::serve_http_with_store!(functions::put_shipping_option::handle);
