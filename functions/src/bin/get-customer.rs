//! Lambda entry point of get-customer: its handler over the store.

functions::serve_http_with_store!(functions::get_customer::handle);
