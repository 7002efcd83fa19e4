//! Lambda entry point of get-tax-rate: its handler over the store.

functions::serve_http_with_store!(functions::get_tax_rate::handle);
