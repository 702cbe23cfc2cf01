import { useState } from 'react';

export default function CreateTask() {
  const [title, setTitle] = useState('');
  const [tasks, setTasks] = useState([]);
  const [error, setError] = useState('');

  const addTask = async (event) => {
    event.preventDefault();
    setError('');
    try {
      const response = await fetch('/api/tasks', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const task = await response.json();
      setTasks((current) => [...current, task]);
      setTitle('');
    } catch (err) {
      setError('Failed to create task');
    }
  };

  return (
    <form onSubmit={addTask}>
      <input placeholder="New task" value={title} onChange={(e) => setTitle(e.target.value)} />
      <button type="submit">Add task</button>
      {error && <p>{error}</p>}
      <ul>
        {tasks.map((task) => (
          <li key={task.id}>{task.title}</li>
        ))}
      </ul>
    </form>
  );
}
