import { useEffect, useState } from 'react';

export default function ToggleTaskComplete() {
  const [tasks, setTasks] = useState([]);
  const [error, setError] = useState('');

  useEffect(() => {
    fetch('/api/tasks')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setTasks)
      .catch(() => setError('Could not load tasks'));
  }, []);

  const toggle = async (task) => {
    setError('');
    try {
      const response = await fetch(`/api/tasks/${task.id}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ done: !task.done }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const updated = await response.json();
      setTasks((current) => current.map((t) => (t.id === updated.id ? updated : t)));
    } catch (err) {
      setError('Could not update task');
    }
  };

  return (
    <div>
      <ul>
        {tasks.map((task) => (
          <li key={task.id}>
            <input
              type="checkbox"
              data-testid={`task-${task.id}-checkbox`}
              checked={task.done}
              onChange={() => toggle(task)}
            />
            <span>{task.title}</span>
          </li>
        ))}
      </ul>
      {error && <p>{error}</p>}
    </div>
  );
}
