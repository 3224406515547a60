/* Tests of floe_table_transaction and floe_table_transaction_preview,
 * run by test_floe.c's main. */
#ifndef FLOE_TEST_TRANSACTION_H
#define FLOE_TEST_TRANSACTION_H

void test_transaction_schema_and_append(void);
void test_transaction_refs_and_spec(void);
void test_transaction_errors(void);

#endif
