package org.gmlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** describe, resolvedParams: the library's JSON as typed Java values, without a device. */
class DescriptionsTest {
    @Test
    void describesAnExperimentTyped() {
        Descriptions.Experiment stride = Gmlab.describe("stride_copy");
        assertEquals("stride_copy", stride.name());
        assertTrue(stride.defaultSuite());
        assertTrue(stride.guideSection().contains("Strided Accesses"), stride.guideSection());
        Descriptions.Parameter strides = stride.parameters().stream()
            .filter(p -> p.name().equals("strides")).findFirst().orElseThrow();
        assertEquals("int_list", strides.type());
        assertEquals(1.0, strides.min().getAsDouble());
        assertEquals(32.0, strides.max().getAsDouble());
        assertEquals(1.0, ((List<?>) strides.defaultValue()).get(0));
        assertTrue(stride.kernels().stream().anyMatch(k -> k.startsWith("stride_copy")), stride.kernels()::toString);
        assertEquals("stride_copy", stride.values().get("name"));
        Expect.error(Status.UNKNOWN_EXPERIMENT, "nope", () -> Gmlab.describe("nope"));
    }

    @Test
    void resolvesParametersIntoAMap() {
        Map<String, Object> params = Gmlab.resolvedParams("stride_copy", "{\"strides\": \"1..4\"}");
        assertEquals(List.of(1.0, 2.0, 3.0, 4.0), params.get("strides"));
        assertEquals(256.0, params.get("block_size"));
        Expect.error(Status.INVALID_ARGUMENT, "paramsJson is not valid JSON", () -> Gmlab.resolvedParams("stream", "{"));
    }
}
