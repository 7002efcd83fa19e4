//! Lambda entry point of put-tax-rate: its handler over the store.

functions::serve_http_with_store!(functions::put_tax_rate::handle);
