# cell: engine
# loses: test_engine_async test_engine_errors
fn()
return
