package dev.delayq.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.delayq.config.JobTypes;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * One {@link DelayqHandler} method as a {@link JobHandler}: binds the job's JSON to the method's
 * payload parameter, passes the {@link JobContext} where the method asks for it, and turns what
 * the method returns or throws into the attempt's outcome. {@link #of} checks the signature, so
 * a handler that exists can always be called.
 */
final class MethodJobHandler implements JobHandler {

  private final String type;
  private final Object bean;
  private final Method invocable;
  /** Where the method wants the payload and the context; -1 for not at all. */
  private final int payloadIndex;
  private final int contextIndex;
  private final Type payloadType;
  private final ObjectReader payloadReader;
  private final boolean returnsResult;
  private final String name;

  private MethodJobHandler(String type, Object bean, Method invocable, int payloadIndex, int contextIndex,
      Type payloadType, ObjectReader payloadReader, boolean returnsResult, String name) {
    this.type = type;
    this.bean = bean;
    this.invocable = invocable;
    this.payloadIndex = payloadIndex;
    this.contextIndex = contextIndex;
    this.payloadType = payloadType;
    this.payloadReader = payloadReader;
    this.returnsResult = returnsResult;
    this.name = name;
  }

  /**
   * The handler for {@code method}, declared on {@code userClass} and called on {@code bean} (which
   * may be a proxy of it); an IllegalStateException naming the method and the type when its
   * signature is not one a handler can have.
   */
  static MethodJobHandler of(Object bean, Class<?> userClass, Method method, String type, ObjectMapper mapper) {
    String name = "@DelayqHandler " + userClass.getName() + "#" + method.getName();
    if (type == null || type.isEmpty()) {
      throw new IllegalStateException(name + " names no job type: give it one, as in @DelayqHandler(\"order_close\")");
    }
    if (!JobTypes.isValid(type)) {
      throw new IllegalStateException(name + " names job type '" + type + "', which does not match [a-z0-9_.:-]{1,64}");
    }
    String subject = name + " (job type '" + type + "')";
    Class<?>[] params = method.getParameterTypes();
    if (params.length > 2) {
      throw new IllegalStateException(subject + " takes " + params.length + " parameters; a handler method takes "
          + "the payload, a JobContext, both (in either order) or neither");
    }
    int payloadIndex = -1;
    int contextIndex = -1;
    for (int i = 0; i < params.length; i++) {
      if (params[i] == JobContext.class) {
        if (contextIndex >= 0) {
          throw new IllegalStateException(subject + " takes two JobContext parameters; it may take one");
        }
        contextIndex = i;
      } else {
        if (payloadIndex >= 0) {
          throw new IllegalStateException(subject + " takes two payload parameters (" + params[payloadIndex].getSimpleName()
              + " and " + params[i].getSimpleName() + "); it may take one, and a JobContext");
        }
        payloadIndex = i;
      }
    }
    Class<?> returns = method.getReturnType();
    boolean returnsResult = JobResult.class.isAssignableFrom(returns);
    if (!returnsResult && returns != void.class && returns != Void.class) {
      throw new IllegalStateException(subject + " returns " + returns.getSimpleName()
          + "; a handler method returns void (the job is done) or a JobResult");
    }
    Method invocable;
    try {
      invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    } catch (IllegalStateException e) {
      // a private method of a proxied bean (a @Transactional service, say), or one a JDK proxy's
      // interfaces lack: the proxy cannot reach it (Spring's message says what to change)
      throw new IllegalStateException(subject + " cannot be called on its bean, a proxy: " + e.getMessage());
    }
    ReflectionUtils.makeAccessible(invocable);
    // the declared type, generics resolved against the bean's class: List<Item> binds Items, not maps
    Type payloadType = payloadIndex < 0 ? null
        : ResolvableType.forMethodParameter(method, payloadIndex, userClass).getType();
    ObjectReader reader = payloadType == null ? null
        : mapper.readerFor(mapper.getTypeFactory().constructType(payloadType));
    return new MethodJobHandler(type, bean, invocable, payloadIndex, contextIndex, payloadType, reader,
        returnsResult, name);
  }

  @Override
  public String type() {
    return type;
  }

  /**
   * Binds, then calls the method on the consumer's thread. A payload that does not bind is an
   * IllegalArgumentException naming the job, the parameter's type and the method; what the method
   * throws is thrown as it is, not wrapped.
   */
  @Override
  public JobResult handle(JobContext context) throws Exception {
    Object[] args = new Object[invocable.getParameterCount()];
    if (payloadIndex >= 0) {
      args[payloadIndex] = bind(context);
    }
    if (contextIndex >= 0) {
      args[contextIndex] = context;
    }
    Object returned;
    try {
      returned = invocable.invoke(bean, args);
    } catch (InvocationTargetException e) {
      Throwable thrown = e.getCause();
      if (thrown instanceof Exception ex) {
        throw ex;
      }
      if (thrown instanceof Error err) {
        throw err;
      }
      throw e;
    }
    if (!returnsResult) {
      return JobResult.done();
    }
    if (returned == null) {
      throw new IllegalStateException(name + " returned null instead of a JobResult");
    }
    return (JobResult) returned;
  }

  private Object bind(JobContext context) {
    try {
      return payloadReader.readValue(context.payloadJson());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("payload of job " + context.id() + " does not bind to "
          + payloadType.getTypeName() + ", the parameter of " + name + ": " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
