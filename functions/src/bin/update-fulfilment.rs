//! Lambda entry point of update-fulfilment: its handler over the store.

functions::serve_http_with_store!(functions::update_fulfilment::handle);
