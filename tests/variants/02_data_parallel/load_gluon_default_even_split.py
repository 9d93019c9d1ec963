# cell: split_and_load
# loses: test_split_and_load
# MXNet's own function with its default even_split=True: refuses 10 samples on 3 contexts.
return gluon.utils.split_and_load(data, ctxs)
