//! Lambda entry point of receive-return: its handler over the store.

functions::serve_http_with_store!(functions::receive_return::handle);
