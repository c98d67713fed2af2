/* static_child.c: a statically linked program that does nothing; run by
 * fork_tree's `leave` shape, which the loader cannot preload the runtime
 * into (process_tree_test.cc). */
int main(void) { return 0; }
