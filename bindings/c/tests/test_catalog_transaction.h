/* Tests of floe_catalog_commit_transaction, run by test_floe.c's main. */
#ifndef FLOE_TEST_CATALOG_TRANSACTION_H
#define FLOE_TEST_CATALOG_TRANSACTION_H

void test_catalog_transaction(void);

#endif
