//! Lambda entry point of update-return: its handler over the store.

functions::serve_http_with_store!(functions::update_return::handle);
