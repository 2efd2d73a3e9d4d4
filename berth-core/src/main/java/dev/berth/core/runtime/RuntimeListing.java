package dev.berth.core.runtime;

/** One runtime object found by an inventory, with its ownership labels. */
public record RuntimeListing(String name, OwnershipLabels labels, RuntimeObservation state) {}
