# cell: engine
# region: 1
# loses: test_engine_async test_engine_errors
fn()
return
