package org.gmlab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/** Typed reads of the JSON documents the library returns; {@code values()} holds all of each. */
public final class Descriptions {
    private Descriptions() {
    }

    /** A JSON object's members by name, with typed getters. */
    abstract static class Record {
        private final Map<String, Object> values;

        Record(Map<String, Object> values) {
            this.values = values;
        }

        /** Every member, as the library wrote it (objects are maps, arrays lists, numbers Double). */
        public Map<String, Object> values() {
            return values;
        }

        String text(String name) {
            Object v = values.get(name);
            return v instanceof String ? (String) v : null;
        }

        OptionalDouble number(String name) {
            Object v = values.get(name);
            return v instanceof Double ? OptionalDouble.of((Double) v) : OptionalDouble.empty();
        }

        long count(String name) {
            return (long) number(name).orElse(0);
        }

        List<?> list(String name) {
            Object v = values.get(name);
            return v instanceof List ? (List<?>) v : List.of();
        }
    }

    /** What {@link Gmlab#describe} says of an experiment. */
    public static final class Experiment extends Record {
        private final List<Parameter> parameters;

        Experiment(Map<String, Object> values) {
            super(values);
            List<Parameter> all = new ArrayList<>();
            for (Object p : list("parameters")) all.add(new Parameter(Json.object(p, "a parameter")));
            parameters = Collections.unmodifiableList(all);
        }

        public String name() {
            return text("name");
        }

        /** The section of the CUDA guides the experiment illustrates. */
        public String guideSection() {
            return text("guide_section");
        }

        public String summary() {
            return text("summary");
        }

        /** Whether {@code gmlab run} runs it without being named. */
        public boolean defaultSuite() {
            return Boolean.TRUE.equals(values().get("default_suite"));
        }

        public List<Parameter> parameters() {
            return parameters;
        }

        /** The names of the kernels it launches. */
        public List<String> kernels() {
            List<String> names = new ArrayList<>();
            for (Object k : list("kernels")) names.add((String) k);
            return Collections.unmodifiableList(names);
        }
    }

    /** One parameter of an experiment: its type, default and bounds. */
    public static final class Parameter extends Record {
        Parameter(Map<String, Object> values) {
            super(values);
        }

        public String name() {
            return text("name");
        }

        /** "int", "int_list", "size", "enum_list", ... */
        public String type() {
            return text("type");
        }

        public String description() {
            return text("description");
        }

        public String unit() {
            return text("unit");
        }

        /** The default: a Double, a String, or a List of them. */
        public Object defaultValue() {
            return values().get("default");
        }

        public OptionalDouble min() {
            return number("min");
        }

        public OptionalDouble max() {
            return number("max");
        }
    }

    /** The device a {@link Context} uses, as the library reads it. */
    public static final class Device extends Record {
        Device(Map<String, Object> values) {
            super(values);
        }

        public int ordinal() {
            return (int) count("ordinal");
        }

        public String name() {
            return text("name");
        }

        /** "9.0" for an H100 or H200. */
        public String computeCapability() {
            return text("compute_capability");
        }

        public int multiprocessors() {
            return (int) count("multiprocessors");
        }

        public long globalMemoryBytes() {
            return count("global_memory_bytes");
        }

        public long l2CacheBytes() {
            return count("l2_cache_bytes");
        }

        public double theoreticalBandwidthGbs() {
            return number("theoretical_bandwidth_gbs").orElse(0);
        }
    }
}
