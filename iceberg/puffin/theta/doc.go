// Package theta is the DataSketches theta sketch Iceberg stores in Puffin
// statistics files as apache-datasketches-theta-v1 blobs: an estimate of a
// column's number of distinct values (NDV).
//
// No Go library of DataSketches is available to floe, so the sketch is
// written here to the rules of the Java library (org.apache.datasketches
// .theta), which readers of these blobs use: values hashed with
// MurmurHash3_x64_128 under the default seed 9001 (the first 64 bits,
// shifted right by one), a QuickSelect sketch of nominal size k = 4096
// that keeps the hashes below theta and, when more than 15/16 of its
// 2k-slot table would fill, lowers theta to the (k+1)th smallest hash and
// drops the rest; a union that keeps the hashes below the smaller theta
// and trims to k; and the compact serialisation (serial version 3, family
// COMPACT), whose bytes Java's CompactSketch.wrap reads and whose
// getEstimate is the count divided by theta as a fraction of 2^63-1.
package theta
