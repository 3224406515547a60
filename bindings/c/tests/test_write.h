/* Tests of table creation, writes and commits (floe_table_create,
 * floe_append, floe_write_files, floe_append_files, floe_replace_partitions,
 * floe_commit, floe_expire_snapshots) and of catalogs (floe_catalog_*), run
 * by test_floe.c's main. */
#ifndef FLOE_TEST_WRITE_H
#define FLOE_TEST_WRITE_H

void test_write_append_roundtrip(void);
void test_write_files_and_commit(void);
void test_write_errors(void);
void test_write_json_rows(void);
void test_write_delete_rows(void);
void test_write_catalog(void);
void test_write_add_files(void);

#endif
